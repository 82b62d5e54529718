/**
 * Executions: the list (GET /v1/workflows/runs, filtered by status, workflow and start time, paged by
 * `next_page_token`), a run of a workflow (POST /v1/workflows/{name}/execute), and one execution: its summary
 * (GET /v1/workflows/executions/{id}), its timeline (GET …/history?decode_payloads=true) and what may be done to
 * it (POST …/signals, …/cancel, …/terminate, …/reset), each only with workflows:execute.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api, failureText } from "../../api.js";
import { href, navigate, type Location } from "../../router.js";
import { may, type Identity } from "../../session.js";
import { ms, when } from "../../ui/format.js";
import { Button, ConfirmButton, ErrorNote, Field, Loading, Panel, Table } from "../../ui/parts.js";
import { useResource } from "../../ui/use-resource.js";
import { parseJson, pretty, Status, STATUSES } from "./common.js";

export interface Execution {
  workflow_name: string;
  workflow_id: string | null;
  deployment_name: string | null;
  execution_id: string;
  parent_execution_id: string | null;
  root_execution_id: string;
  run_id: string | null;
  user_id: string | null;
  status: string | null;
  start_time: string;
  end_time: string | null;
  total_duration_ms: number | null;
  result?: unknown;
}

interface ExecutionPage {
  executions: Execution[];
  next_page_token: string | null;
}

/** A history event (Temporal's form): `{eventId, eventTime, eventType, <type>EventAttributes}`. */
export interface HistoryEvent {
  eventId: string;
  eventTime: string;
  eventType: string;
  [attributes: string]: unknown;
}

interface WorkflowList {
  workflows: { id: string; name: string; display_name: string; archived: boolean }[];
}

const enc = encodeURIComponent;
const executionPath = (id: string) => `/v1/workflows/executions/${enc(id)}`;
/** `2026-11-28T05:00` (a datetime-local control) as the API's ISO instant. */
const instant = (local: string | null): string | undefined => (local ? new Date(local).toISOString() : undefined);
export const typeOf = (event: HistoryEvent): string => event.eventType.replace(/^EVENT_TYPE_/, "");
const attributesOf = (event: HistoryEvent): unknown => Object.entries(event).find(([key]) => key.endsWith("EventAttributes"))?.[1] ?? {};

function useWorkflowNames() {
  return useResource((signal) => api.get<WorkflowList>("/v1/workflows", { limit: 1000 }, signal), []);
}

export function ExecutionList({ identity, location }: { identity: Identity; location: Location }) {
  const params = location.params;
  const filters = { status: params.get("status") ?? "", workflow: params.get("workflow") ?? "", after: params.get("after") ?? "", before: params.get("before") ?? "" };
  const query = {
    status: filters.status || undefined,
    workflow_identifier: filters.workflow || undefined,
    start_time_after: instant(filters.after),
    start_time_before: instant(filters.before),
    page_size: 50,
  };
  const [more, setMore] = useState<{ rows: Execution[]; token: string | null } | null>(null);
  const [moreError, setMoreError] = useState<unknown>();
  const first = useResource(
    (signal) => {
      setMore(null);
      return api.get<ExecutionPage>("/v1/workflows/runs", query, signal);
    },
    [params.toString()],
  );
  const workflows = useWorkflowNames();
  const names = (workflows.data?.workflows ?? []).map((w) => w.name);

  const rows = [...(first.data?.executions ?? []), ...(more?.rows ?? [])];
  const token = more ? more.token : (first.data?.next_page_token ?? null);
  const loadMore = async () => {
    if (!token) return;
    try {
      const page = await api.get<ExecutionPage>("/v1/workflows/runs", { ...query, next_page_token: token });
      setMore({ rows: [...(more?.rows ?? []), ...page.executions], token: page.next_page_token });
    } catch (error) {
      setMoreError(failureText(error));
    }
  };

  // The form's values, reset to the link's whenever the link changes.
  const [draft, setDraft] = useState(filters);
  useEffect(() => setDraft(filters), [params.toString()]);
  const set = (name: keyof typeof filters) => (event: Event) => setDraft({ ...draft, [name]: (event.currentTarget as HTMLInputElement).value });
  const apply = (event: Event) => {
    event.preventDefault();
    navigate(href("workflows", "executions", { status: draft.status || undefined, workflow: draft.workflow || undefined, after: draft.after || undefined, before: draft.before || undefined }));
  };

  return (
    <>
      {may(identity, "workflows:execute") && <RunWorkflow names={names} />}
      <Panel title="Executions">
        <form class="row" onSubmit={apply} aria-label="Filter executions">
          <Field label="Status" id="filter-status">
            <select id="filter-status" value={draft.status} onChange={set("status")}>
              <option value="">Any status</option>
              {STATUSES.map((s) => (
                <option value={s}>{s}</option>
              ))}
            </select>
          </Field>
          <Field label="Workflow" id="filter-workflow">
            <select id="filter-workflow" value={draft.workflow} onChange={set("workflow")}>
              <option value="">Any workflow</option>
              {[...new Set([...names, ...(filters.workflow ? [filters.workflow] : [])])].map((n) => (
                <option value={n}>{n}</option>
              ))}
            </select>
          </Field>
          <Field label="Started after" id="filter-after">
            <input id="filter-after" type="datetime-local" value={draft.after} onInput={set("after")} />
          </Field>
          <Field label="Started before" id="filter-before">
            <input id="filter-before" type="datetime-local" value={draft.before} onInput={set("before")} />
          </Field>
          <div class="field">
            <Button type="submit" kind="primary">
              Filter
            </Button>
          </div>
        </form>
        <ErrorNote error={first.error ?? moreError} />
        {first.loading && !first.data ? (
          <Loading />
        ) : (
          <Table
            caption="Workflow executions, newest first"
            columns={[
              { title: "Execution", cell: (e: Execution) => <a href={href("workflows", "executions", e.execution_id)}>{e.execution_id}</a> },
              { title: "Workflow", cell: (e) => e.workflow_name },
              { title: "Status", cell: (e) => <Status value={e.status} /> },
              { title: "Started", cell: (e) => when(e.start_time) },
              { title: "Ended", cell: (e) => when(e.end_time) },
              { title: "Duration", cell: (e) => ms(e.total_duration_ms), numeric: true },
            ]}
            rows={rows}
            empty="No execution matches."
          />
        )}
        {token && <Button onClick={loadMore}>Load more</Button>}
      </Panel>
    </>
  );
}

/** Starts a workflow (POST /v1/workflows/{name}/execute) and opens its execution. */
function RunWorkflow({ names }: { names: string[] }) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [chosen, setChosen] = useState("");
  const [executionId, setExecutionId] = useState("");
  const [inputText, setInputText] = useState("{}");
  const name = chosen || names[0] || "";
  const run = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    try {
      if (!name) throw new Error("Choose a workflow");
      const input = parseJson(inputText, "The input");
      setBusy(true);
      const started = await api.post<{ execution_id: string }>(`/v1/workflows/${enc(name)}/execute`, { input: input ?? {}, ...(executionId.trim() ? { execution_id: executionId.trim() } : {}) });
      navigate(href("workflows", "executions", started.execution_id));
    } catch (failure) {
      setError(failureText(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Panel title="Run a workflow">
      <form onSubmit={run}>
        <div class="row">
          <Field label="Workflow to run" id="run-workflow">
            <select id="run-workflow" value={name} onChange={(e) => setChosen(e.currentTarget.value)}>
              {names.map((n) => (
                <option value={n}>{n}</option>
              ))}
            </select>
          </Field>
          <Field label="Execution id (optional)" id="run-execution-id">
            <input id="run-execution-id" maxLength={256} value={executionId} onInput={(e) => setExecutionId(e.currentTarget.value)} />
          </Field>
        </div>
        <Field label="Input (JSON object)" id="run-input">
          <textarea id="run-input" class="mono" spellcheck={false} value={inputText} onInput={(e) => setInputText(e.currentTarget.value)} />
        </Field>
        <ErrorNote error={error} />
        <Button type="submit" kind="primary" disabled={busy || names.length === 0}>
          Run
        </Button>
      </form>
    </Panel>
  );
}

export function ExecutionDetail({ identity, id }: { identity: Identity; id: string }) {
  const execution = useResource((signal) => api.get<Execution>(executionPath(id), undefined, signal), [id]);
  const history = useResource((signal) => api.get<{ events: HistoryEvent[] }>(`${executionPath(id)}/history`, { decode_payloads: true }, signal), [id]);
  const running = execution.data?.status === "RUNNING";
  const refresh = () => {
    execution.reload();
    history.reload();
  };
  // A running execution moves on its own: read it again every two seconds until it closes.
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(refresh, 2000);
    return () => clearInterval(timer);
  }, [running]);
  // Once it closes, its history once more: the read that saw it close may have raced its closing event.
  const status = execution.data?.status;
  const previous = useRef(status);
  useEffect(() => {
    if (previous.current === "RUNNING" && status && status !== "RUNNING") history.reload();
    previous.current = status;
  }, [status]);

  const events = history.data?.events ?? [];
  const e = execution.data;
  return (
    <>
      <p>
        <a href={href("workflows", "executions")}>All executions</a>
      </p>
      <Panel title="Summary">
        {execution.error ? (
          <ErrorNote error={execution.error} />
        ) : !e ? (
          <Loading />
        ) : (
          <>
            <dl class="facts">
              <dt>Workflow</dt>
              <dd>{e.workflow_name}</dd>
              <dt>Status</dt>
              <dd data-testid="execution-status">
                <Status value={e.status} />
              </dd>
              <dt>Deployment</dt>
              <dd>{e.deployment_name ?? "—"}</dd>
              <dt>Run</dt>
              <dd class="mono">{e.run_id ?? "—"}</dd>
              <dt>Started</dt>
              <dd>{when(e.start_time)}</dd>
              <dt>Ended</dt>
              <dd>{when(e.end_time)}</dd>
              <dt>Duration</dt>
              <dd>{ms(e.total_duration_ms)}</dd>
              {e.parent_execution_id && (
                <>
                  <dt>Parent</dt>
                  <dd>
                    <a href={href("workflows", "executions", e.parent_execution_id)}>{e.parent_execution_id}</a>
                  </dd>
                </>
              )}
            </dl>
            {e.result !== null && e.result !== undefined && (
              <details>
                <summary>Result</summary>
                <pre tabIndex={0}>{pretty(e.result)}</pre>
              </details>
            )}
            <Button onClick={refresh}>Refresh</Button>
          </>
        )}
      </Panel>
      {e && may(identity, "workflows:execute") && <Actions id={id} running={running} events={events} done={refresh} />}
      <Panel title="Event timeline">
        <ErrorNote error={history.error} />
        {history.loading && !history.data ? (
          <Loading />
        ) : events.length === 0 ? (
          <p class="muted">No event yet.</p>
        ) : (
          <ol class="timeline" aria-label="Event timeline">
            {events.map((event) => (
              <li key={event.eventId}>
                <span class="muted">#{event.eventId}</span> <strong class="event-type">{typeOf(event)}</strong> <time dateTime={event.eventTime}>{when(event.eventTime)}</time>
                <details>
                  <summary>Payload of event {event.eventId}</summary>
                  <pre tabIndex={0}>{pretty(attributesOf(event))}</pre>
                </details>
              </li>
            ))}
          </ol>
        )}
      </Panel>
    </>
  );
}

/** Signal, cancel, terminate and reset: the caller has workflows:execute. */
function Actions({ id, running, events, done }: { id: string; running: boolean; events: HistoryEvent[]; done: () => void }) {
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [signalName, setSignalName] = useState("");
  const [signalInput, setSignalInput] = useState("");
  const resetPoints = events.filter((event) => typeOf(event) === "WORKFLOW_TASK_COMPLETED");
  const [resetTo, setResetTo] = useState("");
  const [reason, setReason] = useState("");

  const act = async (what: string, action: () => Promise<unknown>) => {
    setError(undefined);
    setNotice(undefined);
    try {
      await action();
      setNotice(what);
      done();
    } catch (failure) {
      setError(failureText(failure));
    }
  };
  const signal = (event: Event) => {
    event.preventDefault();
    void act(`Signal ${signalName} sent.`, async () => {
      const input = parseJson(signalInput, "The signal's payload");
      await api.post(`${executionPath(id)}/signals`, { name: signalName, ...(input === undefined ? {} : { input }) });
    });
  };
  const point = resetTo || resetPoints.at(-1)?.eventId || "";
  const stateOf = (event: HistoryEvent) => (attributesOf(event) as { state_name?: string }).state_name ?? "";

  return (
    <Panel title="Actions">
      {running && (
        <form onSubmit={signal} aria-label="Send a signal">
          <div class="row">
            <Field label="Signal name" id="signal-name">
              <input id="signal-name" required maxLength={256} value={signalName} onInput={(e) => setSignalName(e.currentTarget.value)} />
            </Field>
          </div>
          <Field label="Signal payload (JSON)" id="signal-input">
            <textarea id="signal-input" class="mono" spellcheck={false} value={signalInput} onInput={(e) => setSignalInput(e.currentTarget.value)} />
          </Field>
          <Button type="submit" kind="primary">
            Send signal
          </Button>
        </form>
      )}
      <div class="row action-row">
        {running && <ConfirmButton label="Cancel execution" confirm="Confirm cancel" onConfirm={() => act("Cancel requested.", () => api.post(`${executionPath(id)}/cancel`))} />}
        {running && <ConfirmButton label="Terminate execution" confirm="Confirm terminate" onConfirm={() => act("Terminated.", () => api.post(`${executionPath(id)}/terminate`))} />}
      </div>
      {resetPoints.length > 0 && (
        <div class="row">
          <Field label="Reset to event" id="reset-event">
            <select id="reset-event" value={point} onChange={(e) => setResetTo(e.currentTarget.value)}>
              {resetPoints.map((event) => (
                <option value={event.eventId}>
                  #{event.eventId} {stateOf(event)}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Reason (optional)" id="reset-reason">
            <input id="reset-reason" maxLength={4096} value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
          </Field>
          <div class="field">
            <ConfirmButton
              label="Reset"
              confirm="Confirm reset"
              onConfirm={() => act(`Reset to event ${point}.`, () => api.post(`${executionPath(id)}/reset`, { event_id: Number(point), ...(reason ? { reason } : {}) }))}
            />
          </div>
        </div>
      )}
      {!running && resetPoints.length === 0 && <p class="muted">The execution is closed and has no reset point.</p>}
      <ErrorNote error={error} />
      {notice && (
        <p class="ok" role="status">
          {notice}
        </p>
      )}
    </Panel>
  );
}
