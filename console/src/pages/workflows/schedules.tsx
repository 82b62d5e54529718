/**
 * Schedules (GET /v1/workflows/schedules, filtered by status and workflow): each one's times, its next fires
 * (`future_executions`) and recent runs; pause and resume (POST …/{id}/pause, …/resume) with workflows:write, a
 * fire now (POST …/{id}/trigger) with workflows:execute.
 */
import { useState } from "preact/hooks";
import { api, failureText } from "../../api.js";
import { href } from "../../router.js";
import { may, type Identity } from "../../session.js";
import { when } from "../../ui/format.js";
import { Button, ErrorNote, Field, Loading, Panel, Table } from "../../ui/parts.js";
import { useResource } from "../../ui/use-resource.js";

export interface Schedule {
  schedule_id: string;
  workflow_name: string;
  deployment_name: string | null;
  paused: boolean;
  note: string | null;
  cron_expressions: string[];
  intervals: { every: string; offset: string | null }[];
  calendars: { comment: string | null }[];
  time_zone_name: string | null;
  start_at: string | null;
  end_at: string | null;
  remaining_executions: number | null;
  future_executions: { scheduled_at: string }[];
  recent_executions: { scheduled_at: string; started_at: string; execution_id: string }[];
}

const enc = encodeURIComponent;

/** What the schedule's times say, in a line. */
function timesOf(s: Schedule): string {
  const parts = [
    ...s.cron_expressions.map((c) => `cron ${c}`),
    ...s.intervals.map((i) => `every ${i.every}${i.offset ? ` (offset ${i.offset})` : ""}`),
    ...s.calendars.map((c) => `calendar${c.comment ? ` ${c.comment}` : ""}`),
  ];
  return `${parts.join(", ") || "—"}${s.time_zone_name ? ` (${s.time_zone_name})` : ""}`;
}

export function Schedules({ identity }: { identity: Identity }) {
  const [status, setStatus] = useState("");
  const [workflow, setWorkflow] = useState("");
  const [applied, setApplied] = useState({ status: "", workflow: "" });
  const list = useResource(
    (signal) => api.get<{ schedules: Schedule[]; next_page_token: string | null }>("/v1/workflows/schedules", { status: applied.status || undefined, workflow_name: applied.workflow || undefined, page_size: 100 }, signal),
    [applied.status, applied.workflow],
  );
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const writes = may(identity, "workflows:write");
  const fires = may(identity, "workflows:execute");

  const act = async (what: string, path: string) => {
    setError(undefined);
    setNotice(undefined);
    try {
      await api.post(path);
      setNotice(what);
      list.reload();
    } catch (failure) {
      setError(failureText(failure));
    }
  };

  return (
    <Panel title="Schedules">
      <form
        class="row"
        aria-label="Filter schedules"
        onSubmit={(e) => {
          e.preventDefault();
          setApplied({ status, workflow: workflow.trim() });
        }}
      >
        <Field label="Schedule status" id="schedule-status">
          <select id="schedule-status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            <option value="">Active and paused</option>
            <option value="active">Active</option>
            <option value="paused">Paused</option>
          </select>
        </Field>
        <Field label="Workflow name" id="schedule-workflow">
          <input id="schedule-workflow" value={workflow} maxLength={256} onInput={(e) => setWorkflow(e.currentTarget.value)} />
        </Field>
        <div class="field">
          <Button type="submit" kind="primary">
            Filter
          </Button>
        </div>
      </form>
      <ErrorNote error={list.error ?? error} />
      {notice && (
        <p class="ok" role="status">
          {notice}
        </p>
      )}
      {list.loading && !list.data ? (
        <Loading />
      ) : (
        <Table
          caption="Workflow schedules"
          columns={[
            { title: "Schedule", cell: (s: Schedule) => <span class="mono">{s.schedule_id}</span> },
            { title: "Workflow", cell: (s) => s.workflow_name },
            { title: "Times", cell: (s) => timesOf(s) },
            {
              title: "Next fires",
              cell: (s) =>
                s.paused ? (
                  <span class="muted">none while paused</span>
                ) : s.future_executions.length === 0 ? (
                  <span class="muted">none</span>
                ) : (
                  <ul class="plain">
                    {s.future_executions.slice(0, 3).map((f) => (
                      <li>
                        <time dateTime={f.scheduled_at}>{when(f.scheduled_at)}</time>
                      </li>
                    ))}
                  </ul>
                ),
            },
            {
              title: "Last runs",
              cell: (s) =>
                s.recent_executions.length === 0 ? (
                  <span class="muted">none</span>
                ) : (
                  <ul class="plain">
                    {s.recent_executions.slice(0, 3).map((r) => (
                      <li>
                        <a href={href("workflows", "executions", r.execution_id)}>{when(r.started_at)}</a>
                      </li>
                    ))}
                  </ul>
                ),
            },
            { title: "State", cell: (s) => <span class="badge">{s.paused ? `paused${s.note ? `: ${s.note}` : ""}` : "active"}</span> },
            ...(writes || fires
              ? [
                  {
                    title: "Actions",
                    cell: (s: Schedule) => (
                      <span class="row">
                        {writes &&
                          (s.paused ? (
                            <Button aria-label={`Resume ${s.schedule_id}`} onClick={() => act(`Schedule ${s.schedule_id} resumed.`, `/v1/workflows/schedules/${enc(s.schedule_id)}/resume`)}>
                              Resume
                            </Button>
                          ) : (
                            <Button aria-label={`Pause ${s.schedule_id}`} onClick={() => act(`Schedule ${s.schedule_id} paused.`, `/v1/workflows/schedules/${enc(s.schedule_id)}/pause`)}>
                              Pause
                            </Button>
                          ))}
                        {fires && (
                          <Button aria-label={`Run now ${s.schedule_id}`} onClick={() => act(`Schedule ${s.schedule_id} fired.`, `/v1/workflows/schedules/${enc(s.schedule_id)}/trigger`)}>
                            Run now
                          </Button>
                        )}
                      </span>
                    ),
                  },
                ]
              : []),
          ]}
          rows={list.data?.schedules ?? []}
          empty="No schedule."
        />
      )}
    </Panel>
  );
}
