/**
 * Workflows (workflows:read): tabs for executions (`#/workflows/executions`, one at `…/executions/<id>`),
 * schedules and deployments with their workers. Each action shows only with its route's permission:
 * run, signal, cancel, terminate, reset and a schedule's fire need workflows:execute; pause and resume
 * workflows:write (functions/workflows/routes.ts, functions/schedules/routes.ts).
 */
import { Page } from "../ui/parts.js";
import type { PageProps } from "./index.js";
import { Tabs, TABS, type TabId } from "./workflows/common.js";
import { Deployments } from "./workflows/deployments.js";
import { ExecutionDetail, ExecutionList } from "./workflows/executions.js";
import { Schedules } from "./workflows/schedules.js";

export function Workflows({ identity, location }: PageProps) {
  const [, section, item] = location.segments;
  const tab: TabId = TABS.some((t) => t.id === section) ? (section as TabId) : "executions";
  const title = tab === "executions" && item ? `Execution ${item}` : "Workflows";
  return (
    <Page title={title}>
      <Tabs current={tab} />
      {tab === "executions" && (item ? <ExecutionDetail key={item} identity={identity} id={item} /> : <ExecutionList identity={identity} location={location} />)}
      {tab === "schedules" && <Schedules identity={identity} />}
      {tab === "deployments" && <Deployments selected={item} />}
    </Page>
  );
}
