/*
 * The audit log's operations, in a module of their own with no import: the web console's audit page offers them as
 * its filter (console/src/pages/audit.tsx) without bringing zod into its bundle.
 */

/** Every operation the log records. Route-table rows name theirs (`audit`), so a privileged row without one fails a test. */
export const AUDIT_OPERATIONS = [
  "key.create",
  "key.revoke",
  "key.update",
  "url-secret.rotate",
  "user.create",
  "membership.put",
  "membership.remove",
  "workspace.create",
  "workspace.update",
  "workspace.archive",
  "service-account.create",
  "service-account.update",
  "service-account.delete",
  "service-account.set-roles",
  "spend-limit.set",
  "spend.soft-limit-reached",
  "connector.create",
  "connector.update",
  "connector.delete",
  "connector.share",
  "connector.unshare",
  "connector.activate",
  "connector.deactivate",
  "connector-credentials.store",
  "connector-credentials.remove",
  "deployment.harden",
  "deployment.principals",
  "deployment.unharden",
  "workflow.archive",
  "workflow.unarchive",
  "library.share",
  "library.unshare",
  "client-session.create",
] as const;
