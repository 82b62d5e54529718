/** What the workflow views share: their tabs, JSON as it reads, and the API's refusal as it reads. */
import { href } from "../../router.js";

export const TABS = [
  { id: "executions", title: "Executions" },
  { id: "schedules", title: "Schedules" },
  { id: "deployments", title: "Deployments" },
] as const;
export type TabId = (typeof TABS)[number]["id"];

export function Tabs({ current }: { current: TabId }) {
  return (
    <nav class="tabs" aria-label="Workflow views">
      {TABS.map((tab) => (
        <a href={href("workflows", tab.id)} aria-current={tab.id === current ? "page" : undefined}>
          {tab.title}
        </a>
      ))}
    </nav>
  );
}

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
