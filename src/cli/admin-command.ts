import type { Command } from "commander";

interface ResetKeyFlags {
  dataDir?: string;
  storage?: string;
  server?: string;
  auditLog?: string;
  auditLogMaxsize?: string;
  auditLogMaxbackup?: string;
  revokeAll?: boolean;
  config?: string;
}

/** `platform admin …`: offline administration of a server's data dir. */
export function registerAdminCommands(program: Command): void {
  const admin = program.command("admin").description("Offline administration of a server's data dir");
  admin
    .command("reset-key")
    .description("Write a new access key and kubeconfig for the admin user (server stopped)")
    .option("--data-dir <dir>", "the server's data dir", "./data")
    .option("--storage <url>", "the server's --storage (default sqlite:<data-dir>/platform.db; etcd:// works too)")
    .option("--server <url>", "server URL for the kubeconfig (default: the one in <data-dir>/admin.kubeconfig)")
    .option("--audit-log <file>", "the server's --audit-log: the reset is recorded there")
    .option("--audit-log-maxsize <MB>", "the server's --audit-log-maxsize")
    .option("--audit-log-maxbackup <n>", "the server's --audit-log-maxbackup")
    .option("--revoke-all", "also delete every other access key of the admin user")
    .option("--config <file>", "the server's --config file: its data-dir, storage and audit-log settings are used")
    .addHelpText(
      "after",
      `
The key the data dir held (admin-bootstrap, or an earlier reset's) is deleted; other keys
of the admin user are kept and listed unless --revoke-all. Refused while a server runs
on a SQLite data dir.

Examples:
  platform admin reset-key --data-dir /var/lib/platform --audit-log /var/log/platform/audit.log
  platform admin reset-key --config /etc/platform/config.yaml --revoke-all`,
    )
    .action(async (flags: ResetKeyFlags, command: Command) => {
      // Loaded only here: the other commands start without the server's modules.
      const { resetAdminKey, resetSettingsFromServerConfig } = await import("../app/reset-admin-key.js");
      const fromFile = flags.config ? resetSettingsFromServerConfig(flags.config) : {};
      // Flags given win over the config file; --data-dir's default loses to the file's.
      const dataDirGiven = command.getOptionValueSource("dataDir") === "cli";
      const size = flags.auditLogMaxsize ?? fromFile["audit-log-maxsize"];
      const backups = flags.auditLogMaxbackup ?? fromFile["audit-log-maxbackup"];
      const result = await resetAdminKey({
        dataDir: (dataDirGiven ? flags.dataDir : fromFile["data-dir"]) ?? flags.dataDir ?? "./data",
        storage: flags.storage ?? fromFile.storage,
        server: flags.server,
        auditLog: flags.auditLog ?? fromFile["audit-log"],
        auditLogMaxSizeMb: size ? Number(size) : undefined,
        auditLogMaxBackup: backups ? Number(backups) : undefined,
        revokeAll: flags.revokeAll === true,
      });
      const out = [
        `new admin access key ${result.keyName} written to ${result.keyFile} (mode 0600)`,
        `admin kubeconfig:  ${result.kubeconfig}`,
        `revoked:           ${result.revoked.join(", ") || "none"}`,
        `kept:              ${result.kept.join(", ") || "none"}${result.kept.length ? " (--revoke-all deletes them)" : ""}`,
      ];
      if (result.userRepairs.length) out.push(`admin user:        ${result.userRepairs.join(", ")}`);
      out.push(result.auditLog ? `recorded in:       ${result.auditLog}` : "");
      process.stdout.write(`${out.filter(Boolean).join("\n")}\n`);
      if (!result.auditLog) {
        process.stderr.write("warning: no --audit-log given: the reset is recorded in no audit log\n");
      }
    });
}
