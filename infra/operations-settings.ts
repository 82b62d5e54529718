import * as logs from "aws-cdk-lib/aws-logs";
import type { Construct } from "constructs";
import { DEFAULT_AUDIT_RETENTION_DAYS } from "../shared/config.js";

/**
 * The operator's context settings (docs/operations.md, docs/deploy.md):
 * - `alarmEmail`: an e-mail address subscribed to the alarm topic (it confirms once, from the mail AWS sends);
 * - `logRetentionDays`: how long EVERY log group keeps its lines (one of CloudWatch Logs' allowed values);
 *   unset, each group keeps its own default (functions 30 days, access logs and state machines 90);
 * - `tracing`: `true` switches on X-Ray active tracing on every function, the API stage and the state machines;
 * - `detailDashboards`: `true` adds a dashboard per area and engine, and one of the tables, beside the overview
 *   (each past the account's three free dashboards is billed: decision 0066).
 * Read from any construct (context is app-wide), checked once by buildApp.
 */
export interface OperationsSettings {
  alarmEmail?: string;
  logRetentionDays?: logs.RetentionDays;
  tracing: boolean;
  detailDashboards: boolean;
}

const RETENTION_DAYS = new Set(Object.values(logs.RetentionDays).filter((v): v is number => typeof v === "number"));

export function operationsSettings(scope: Construct): OperationsSettings {
  const email = scope.node.tryGetContext("alarmEmail");
  const alarmEmail = email === undefined || email === "" ? undefined : String(email);
  if (alarmEmail !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(alarmEmail)) throw new Error(`-c alarmEmail=${alarmEmail}: use one e-mail address`);

  const retention = scope.node.tryGetContext("logRetentionDays");
  let logRetentionDays: logs.RetentionDays | undefined;
  if (retention !== undefined && retention !== "") {
    const days = Number(retention);
    if (!RETENTION_DAYS.has(days) || days === logs.RetentionDays.INFINITE) {
      throw new Error(`-c logRetentionDays=${retention}: use one of CloudWatch Logs' retention periods (${[...RETENTION_DAYS].filter((d) => d !== logs.RetentionDays.INFINITE).join(", ")})`);
    }
    logRetentionDays = days as logs.RetentionDays;
  }

  return { alarmEmail, logRetentionDays, tracing: switchSetting(scope, "tracing"), detailDashboards: switchSetting(scope, "detailDashboards") };
}

/** An on/off context setting: true, on, 1 or yes; false, off, 0, no or unset. Anything else is refused. */
function switchSetting(scope: Construct, name: string): boolean {
  const raw = scope.node.tryGetContext(name);
  const on = raw === true || /^(true|on|1|yes)$/i.test(String(raw ?? ""));
  if (raw !== undefined && raw !== false && !on && !/^(false|off|0|no|)$/i.test(String(raw))) throw new Error(`-c ${name}=${raw}: use true or false`);
  return on;
}

/**
 * `-c auditRetentionDays=N` (default 400): days audit events are kept, the audit table's TTL (AUDIT_RETENTION_DAYS
 * in the functions that append). Read from any construct, like the settings above.
 */
export function auditRetention(scope: Construct): number {
  const raw = scope.node.tryGetContext("auditRetentionDays");
  if (raw === undefined || raw === "") return DEFAULT_AUDIT_RETENTION_DAYS;
  const days = Number(raw);
  if (!Number.isInteger(days) || days < 1) throw new Error(`-c auditRetentionDays=${raw}: use a whole number of days, at least 1`);
  return days;
}
