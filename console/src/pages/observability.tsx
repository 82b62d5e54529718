/**
 * Observability (observability:read): tabs for the span search (`#/observability/spans?q=…`), traces
 * (`#/observability/traces`, one at `…/traces/<id>` as a waterfall), datasets (one at `…/datasets/<id>` with its
 * records) and evaluations (judges and span evaluations). Creating a dataset needs observability:write.
 */
import { Page } from "../ui/parts.js";
import type { PageProps } from "./index.js";
import { Tabs, TABS, type TabId } from "./observability/common.js";
import { DatasetList, DatasetView } from "./observability/datasets.js";
import { Evaluations } from "./observability/evaluations.js";
import { SearchView } from "./observability/spans.js";
import { TraceView } from "./observability/trace.js";

export function Observability({ identity, location }: PageProps) {
  const [, section, item] = location.segments;
  const tab: TabId = TABS.some((t) => t.id === section) ? (section as TabId) : "spans";
  const title = tab === "traces" && item ? `Trace ${item}` : tab === "datasets" && item ? "Dataset" : "Observability";
  return (
    <Page title={title}>
      <Tabs current={tab} />
      {tab === "spans" && <SearchView key="spans" kind="spans" location={location} />}
      {tab === "traces" && (item ? <TraceView key={item} id={item} highlighted={location.params.get("span")} /> : <SearchView key="traces" kind="traces" location={location} />)}
      {tab === "datasets" && (item ? <DatasetView key={item} id={item} /> : <DatasetList identity={identity} />)}
      {tab === "evaluations" && <Evaluations />}
    </Page>
  );
}
