/** What the observability views share: their tabs, JSON as it reads, and the family's refusal as it reads. */
import { href } from "../../router.js";
import { Tabs as ViewTabs } from "../../ui/parts.js";

export const TABS = [
  { id: "spans", title: "Spans" },
  { id: "traces", title: "Traces" },
  { id: "datasets", title: "Datasets" },
  { id: "evaluations", title: "Evaluations" },
] as const;
export type TabId = (typeof TABS)[number]["id"];

export const Tabs = ({ current }: { current: TabId }) => <ViewTabs label="Observability views" current={current} tabs={TABS.map((tab) => ({ ...tab, href: href("observability", tab.id) }))} />;

export const pretty = (value: unknown): string => JSON.stringify(value, null, 2) ?? "null";


/** A span's or trace's duration in nanoseconds, as milliseconds. */
export const nsToMs = (ns: number | null | undefined): number | null => (ns === null || ns === undefined ? null : ns / 1e6);

/** The search windows offered: how far back `from` goes (the API's default is the whole retention). */
export const WINDOWS = [
  { id: "1h", title: "Last hour", ms: 3_600_000 },
  { id: "1d", title: "Last day", ms: 86_400_000 },
  { id: "7d", title: "Last 7 days", ms: 7 * 86_400_000 },
  { id: "all", title: "Everything kept", ms: 0 },
] as const;
export const fromOf = (window: string | null): string | undefined => {
  const chosen = WINDOWS.find((w) => w.id === window);
  return chosen && chosen.ms ? new Date(Date.now() - chosen.ms).toISOString() : undefined;
};
