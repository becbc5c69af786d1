/**
 * The most bytes a request body may have (kube-apiserver's MaxRequestBodyBytes, etcd's
 * recommended request size): larger bodies are refused with 413 before they are read whole
 * (src/server/server.ts), and no patch may make an object or add copies beyond it (patch.ts).
 */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;
