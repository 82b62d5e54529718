/**
 * Batch jobs: the workspace's jobs with their status and progress (GET /v1/batch/jobs), a new job from an uploaded
 * batch file (POST /v1/batch/jobs), and one job (`#/batch/<id>`, GET /v1/batch/jobs/{id}) refreshed every 2 s
 * while it runs, with cancel (POST …/cancel) and its output and error files' downloads (GET
 * /v1/files/{id}/content). Create and cancel need `batch:write` and are absent without it.
 */
import { useEffect, useState } from "preact/hooks";
import { api, download } from "../api.js";
import { href, navigate } from "../router.js";
import { may } from "../session.js";
import { count, when } from "../ui/format.js";
import { Button, ConfirmButton, ErrorNote, Field, Loading, Page, Panel, Table } from "../ui/parts.js";
import { useResource } from "../ui/use-resource.js";
import type { PageProps } from "./index.js";
import type { FileOut } from "./files.js";

export interface BatchJob {
  id: string;
  object: "batch";
  input_files: string[];
  metadata: Record<string, unknown> | null;
  endpoint: string;
  model: string | null;
  agent_id: string | null;
  output_file: string | null;
  error_file: string | null;
  errors: { message: string; count: number }[];
  status: BatchStatus;
  created_at: number;
  total_requests: number;
  completed_requests: number;
  succeeded_requests: number;
  failed_requests: number;
  started_at: number | null;
  completed_at: number | null;
}

type BatchStatus = "QUEUED" | "RUNNING" | "SUCCESS" | "FAILED" | "TIMEOUT_EXCEEDED" | "CANCELLATION_REQUESTED" | "CANCELLED";
const STATUSES: BatchStatus[] = ["QUEUED", "RUNNING", "SUCCESS", "FAILED", "TIMEOUT_EXCEEDED", "CANCELLATION_REQUESTED", "CANCELLED"];
const FINAL: BatchStatus[] = ["SUCCESS", "FAILED", "TIMEOUT_EXCEEDED", "CANCELLED"];
export const isFinal = (status: BatchStatus): boolean => FINAL.includes(status);

/** shared/schemas/batch.ts BatchEndpoint, with the model capability (GET /v1/models card) that serves each. */
const ENDPOINTS: { path: string; capability?: string }[] = [
  { path: "/v1/chat/completions", capability: "completion_chat" },
  { path: "/v1/fim/completions", capability: "completion_fim" },
  { path: "/v1/embeddings" },
  { path: "/v1/moderations", capability: "moderation" },
  { path: "/v1/chat/moderations", capability: "moderation" },
  { path: "/v1/classifications", capability: "moderation" },
  { path: "/v1/chat/classifications", capability: "moderation" },
  { path: "/v1/ocr", capability: "ocr" },
  { path: "/v1/conversations", capability: "completion_chat" },
];

interface ModelCard {
  id: string;
  archived: boolean;
  capabilities: Record<string, boolean>;
}

const PAGE_SIZE = 20;
const REFRESH_MS = 2000;

export function BatchJobs({ identity, location }: PageProps) {
  const jobId = location.segments[1];
  if (jobId) return <JobDetail id={jobId} canWrite={may(identity, "batch:write")} />;
  return (
    <Page title="Batch jobs">
      {may(identity, "batch:write") && <CreateJob canListFiles={may(identity, "files:read")} canListModels={may(identity, "models:read")} />}
      <JobList />
    </Page>
  );
}

/** Completed of total as a progress bar, with the counts in words beside it. */
function JobProgress({ job }: { job: BatchJob }) {
  const label = `${count(job.completed_requests)} of ${count(job.total_requests)} done (${count(job.succeeded_requests)} succeeded, ${count(job.failed_requests)} failed)`;
  return (
    <div class="batch-progress">
      {job.total_requests > 0 || isFinal(job.status) ? (
        <progress max={Math.max(job.total_requests, 1)} value={job.total_requests > 0 ? job.completed_requests : isFinal(job.status) ? 1 : 0} aria-label={`Progress of job ${job.id}`} />
      ) : (
        <progress aria-label={`Progress of job ${job.id}`} />
      )}
      <span class="muted">{label}</span>
    </div>
  );
}

export function StatusBadge({ status }: { status: BatchStatus }) {
  const tone = status === "SUCCESS" ? "ok" : status === "FAILED" || status === "TIMEOUT_EXCEEDED" ? "bad" : "";
  return <span class={`badge batch-status ${tone}`}>{status}</span>;
}

function JobList() {
  const [status, setStatus] = useState("");
  const [page, setPage] = useState(0);
  const jobs = useResource((signal) => api.get<{ data: BatchJob[]; total: number }>("/v1/batch/jobs", { page, page_size: PAGE_SIZE, status }, signal), [page, status]);
  const total = jobs.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  const running = (jobs.data?.data ?? []).some((job) => !isFinal(job.status));
  // The list follows running jobs too, at the same pace as a job's page.
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(jobs.reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [running, jobs.reload]);
  return (
    <Panel title="Jobs">
      <div class="row">
        <Field label="Status" id="batch-status-filter">
          <select
            id="batch-status-filter"
            value={status}
            onChange={(e) => {
              setStatus(e.currentTarget.value);
              setPage(0);
            }}
          >
            <option value="">Any status</option>
            {STATUSES.map((s) => (
              <option value={s}>{s}</option>
            ))}
          </select>
        </Field>
        <div class="field">
          <Button onClick={jobs.reload}>Refresh</Button>
        </div>
      </div>
      <ErrorNote error={jobs.error} />
      {jobs.loading && !jobs.data ? (
        <Loading />
      ) : (
        <>
          <Table
            caption="Batch jobs of the workspace"
            columns={[
              { title: "Job", cell: (j: BatchJob) => <a href={href("batch", j.id)}><code>{j.id}</code></a> },
              { title: "Status", cell: (j) => <StatusBadge status={j.status} /> },
              { title: "Progress", cell: (j) => <JobProgress job={j} /> },
              { title: "Model or agent", cell: (j) => j.model ?? j.agent_id ?? "—" },
              { title: "Endpoint", cell: (j) => <code>{j.endpoint}</code> },
              { title: "Created", cell: (j) => when(j.created_at) },
            ]}
            rows={jobs.data?.data ?? []}
            empty={status ? `No job with status ${status}.` : "No batch job yet."}
          />
          {pages > 1 && (
            <nav class="row pager" aria-label="Pages of jobs">
              <Button onClick={() => setPage(page - 1)} disabled={page === 0}>
                Previous page
              </Button>
              <span>
                Page {page + 1} of {pages} ({count(total)} jobs)
              </span>
              <Button onClick={() => setPage(page + 1)} disabled={page + 1 >= pages}>
                Next page
              </Button>
            </nav>
          )}
        </>
      )}
    </Panel>
  );
}

function CreateJob({ canListFiles, canListModels }: { canListFiles: boolean; canListModels: boolean }) {
  const inputs = useResource(
    (signal) => (canListFiles ? api.get<{ data: FileOut[] }>("/v1/files", { purpose: "batch", sample_type: "batch_request", page_size: 100 }, signal).then((r) => r.data) : Promise.resolve([] as FileOut[])),
    [canListFiles],
  );
  const models = useResource(
    (signal) => (canListModels ? api.get<{ data: ModelCard[] }>("/v1/models", undefined, signal).then((r) => r.data) : Promise.resolve([] as ModelCard[])),
    [canListModels],
  );
  const [file, setFile] = useState("");
  const [endpoint, setEndpoint] = useState(ENDPOINTS[0]!.path);
  const [model, setModel] = useState("");
  const [timeout, setTimeoutHours] = useState("24");
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const chosenFile = file || inputs.data?.[0]?.id || "";
  const capability = ENDPOINTS.find((e) => e.path === endpoint)?.capability;
  const fitting = (models.data ?? []).filter((m) => !m.archived && (!capability || m.capabilities[capability]));

  async function create() {
    setError(undefined);
    const hours = Number(timeout);
    if (!chosenFile) return setError(new Error("Choose an input file (upload one of purpose batch on the Files page)."));
    if (!model.trim()) return setError(new Error("Choose a model."));
    if (!Number.isInteger(hours) || hours < 1 || hours > 168) return setError(new Error("The timeout must be a whole number of hours from 1 to 168."));
    setBusy(true);
    try {
      const job = await api.post<BatchJob>("/v1/batch/jobs", { input_files: [chosenFile], endpoint, model: model.trim(), timeout_hours: hours });
      navigate(href("batch", job.id));
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Panel title="New job">
      <ErrorNote error={inputs.error ?? models.error} />
      <div class="row">
        {canListFiles ? (
          <Field label="Input file" id="batch-file">
            <select id="batch-file" value={chosenFile} onChange={(e) => setFile(e.currentTarget.value)}>
              {(inputs.data ?? []).length === 0 && <option value="">No batch file: upload one on the Files page</option>}
              {(inputs.data ?? []).map((f) => (
                <option value={f.id}>{`${f.filename} (${count(f.num_lines)} lines, ${f.id.slice(0, 8)})`}</option>
              ))}
            </select>
          </Field>
        ) : (
          <Field label="Input file ID" id="batch-file">
            <input id="batch-file" value={file} onInput={(e) => setFile(e.currentTarget.value)} />
          </Field>
        )}
        <Field label="Endpoint" id="batch-endpoint">
          <select id="batch-endpoint" value={endpoint} onChange={(e) => setEndpoint(e.currentTarget.value)}>
            {ENDPOINTS.map((e) => (
              <option value={e.path}>{e.path}</option>
            ))}
          </select>
        </Field>
        <Field label="Model" id="batch-model" hint={capability ? "Suggestions: the catalog's models for this endpoint" : "Suggestions: the catalog"}>
          <input id="batch-model" list="batch-models" value={model} onInput={(e) => setModel(e.currentTarget.value)} autocomplete="off" />
          <datalist id="batch-models">
            {fitting.map((m) => (
              <option value={m.id} />
            ))}
          </datalist>
        </Field>
        <Field label="Timeout (hours)" id="batch-timeout">
          <input id="batch-timeout" type="number" min={1} max={168} step={1} value={timeout} onInput={(e) => setTimeoutHours(e.currentTarget.value)} />
        </Field>
        <div class="field">
          <Button kind="primary" onClick={create} disabled={busy}>
            Create job
          </Button>
        </div>
      </div>
      <ErrorNote error={error} />
    </Panel>
  );
}

function JobDetail({ id, canWrite }: { id: string; canWrite: boolean }) {
  const job = useResource((signal) => api.get<BatchJob>(`/v1/batch/jobs/${encodeURIComponent(id)}`, undefined, signal), [id]);
  const [actionError, setActionError] = useState<unknown>();
  const status = job.data?.status;
  const live = status !== undefined && !isFinal(status);
  // Refreshed every 2 s while the job runs; stopped when it ends or the page is left (the effect's cleanup).
  useEffect(() => {
    if (!live) return;
    const timer = setInterval(job.reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [live, job.reload]);

  const cancel = async () => {
    setActionError(undefined);
    try {
      await api.post(`/v1/batch/jobs/${encodeURIComponent(id)}/cancel`);
      job.reload();
    } catch (error) {
      setActionError(error);
    }
  };
  const save = async (fileId: string, kind: string) => {
    setActionError(undefined);
    try {
      await download(`/v1/files/${encodeURIComponent(fileId)}/content`, `batch-${id}-${kind}.jsonl`);
    } catch (error) {
      setActionError(error);
    }
  };

  const data = job.data;
  return (
    <Page
      title="Batch job"
      actions={
        <>
          <a href={href("batch")}>All jobs</a>
          {canWrite && data && !isFinal(data.status) && data.status !== "CANCELLATION_REQUESTED" && <ConfirmButton label="Cancel job" confirm="Cancel it" onConfirm={cancel} />}
        </>
      }
    >
      <ErrorNote error={job.error ?? actionError} />
      {!data ? (
        job.loading ? <Loading /> : null
      ) : (
        <>
          <Panel title="Status">
            <p>
              <code>{data.id}</code> <StatusBadge status={data.status} />{" "}
              <span class="muted" role="status">
                {live ? "Refreshing every 2 seconds while it runs." : "Finished."}
              </span>
            </p>
            <JobProgress job={data} />
            <dl class="batch-facts">
              <dt>Endpoint</dt>
              <dd><code>{data.endpoint}</code></dd>
              <dt>{data.agent_id ? "Agent" : "Model"}</dt>
              <dd>{data.agent_id ?? data.model ?? "—"}</dd>
              <dt>Input files</dt>
              <dd>{data.input_files.length ? data.input_files.map((f) => <code class="batch-file-id">{f}</code>) : "inline requests"}</dd>
              <dt>Created</dt>
              <dd>{when(data.created_at)}</dd>
              <dt>Started</dt>
              <dd>{when(data.started_at)}</dd>
              <dt>Completed</dt>
              <dd>{when(data.completed_at)}</dd>
              {data.metadata && Object.keys(data.metadata).length > 0 && (
                <>
                  <dt>Metadata</dt>
                  <dd><code>{JSON.stringify(data.metadata)}</code></dd>
                </>
              )}
            </dl>
          </Panel>
          <Panel title="Results">
            {!data.output_file && !data.error_file ? (
              <p class="muted">{isFinal(data.status) ? "This job left no result file." : "The result files appear when the job ends."}</p>
            ) : (
              <div class="row">
                {data.output_file && (
                  <Button onClick={() => save(data.output_file!, "output")}>Download outputs</Button>
                )}
                {data.error_file && (
                  <Button onClick={() => save(data.error_file!, "errors")}>Download errors</Button>
                )}
              </div>
            )}
            {data.errors.length > 0 && (
              <Table
                caption="Errors of the job"
                columns={[
                  { title: "Error", cell: (e: { message: string; count: number }) => e.message },
                  { title: "Count", cell: (e) => count(e.count), numeric: true },
                ]}
                rows={data.errors}
              />
            )}
          </Panel>
        </>
      )}
    </Page>
  );
}
