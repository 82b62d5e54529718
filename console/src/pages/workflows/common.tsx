/** What the workflow views share: their tabs, JSON as it reads, and the API's refusal as it reads. */
import { href } from "../../router.js";
import { Tabs as ViewTabs } from "../../ui/parts.js";

export const TABS = [
  { id: "executions", title: "Executions" },
  { id: "schedules", title: "Schedules" },
  { id: "deployments", title: "Deployments" },
] as const;
export type TabId = (typeof TABS)[number]["id"];

export const Tabs = ({ current }: { current: TabId }) => <ViewTabs label="Workflow views" current={current} tabs={TABS.map((tab) => ({ ...tab, href: href("workflows", tab.id) }))} />;

/** A value as indented JSON. */
export const pretty = (value: unknown): string => JSON.stringify(value, null, 2) ?? "null";

/** Text a reader typed as JSON: empty is `undefined`; anything else must parse (the error names the field). */
export function parseJson(text: string, what: string): unknown {
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${what} is not valid JSON`);
  }
}


export const STATUSES = ["RUNNING", "COMPLETED", "FAILED", "CANCELED", "TERMINATED", "CONTINUED_AS_NEW", "TIMED_OUT", "RETRYING_AFTER_ERROR"] as const;

export function Status({ value }: { value: string | null }) {
  return <span class={`badge status-${(value ?? "unknown").toLowerCase()}`}>{value ?? "—"}</span>;
}
