/** The objects the bench writes: about 1 KiB each, as a client sends them or as the API stores them. */

/** A Cluster of about 1 KiB as the API stores it (no resourceVersion). */
export function clusterBytes(name: string): Buffer {
  return Buffer.from(
    JSON.stringify({
      apiVersion: "management.platform/v1",
      kind: "Cluster",
      metadata: {
        name,
        uid: `00000000-0000-4000-8000-${name.padStart(12, "0").slice(-12)}`,
        creationTimestamp: "2025-01-01T00:00:00Z",
        generation: 1,
        annotations: { "bench/pad": "x".repeat(700) },
      },
      spec: { displayName: name, config: { secretName: `${name}-kubeconfig`, secretNamespace: "platform" } },
      status: {},
    }),
  );
}

/** A Team of about 1 KiB, as a client sends it. */
export function teamBytes(name: string): Buffer {
  return Buffer.from(
    JSON.stringify({
      apiVersion: "management.platform/v1",
      kind: "Team",
      metadata: { name, annotations: { "bench/pad": "x".repeat(800) } },
      spec: { displayName: name },
    }),
  );
}

/** A Team of about 1 KiB as the API stores it (no resourceVersion). */
export function storedTeamBytes(name: string): Buffer {
  const obj = JSON.parse(clusterBytes(name).toString());
  return Buffer.from(JSON.stringify({ ...obj, kind: "Team", spec: { displayName: name } }));
}
