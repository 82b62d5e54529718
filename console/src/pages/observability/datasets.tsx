/**
 * Datasets (GET /v1/observability/datasets, `q` name contains), a new one (POST, observability:write), and one
 * dataset with its records a page at a time (GET …/datasets/{id}, …/{id}/records?page=N, oldest first).
 */
import { useState } from "preact/hooks";
import { api, failureText } from "../../api.js";
import { href, navigate } from "../../router.js";
import { may, type Identity } from "../../session.js";
import { count, when } from "../../ui/format.js";
import { Button, ErrorNote, Field, Loading, Panel, Table } from "../../ui/parts.js";
import { useResource } from "../../ui/use-resource.js";
import { pretty } from "./common.js";

interface Dataset {
  id: string;
  name: string;
  description: string;
  owner_id: string;
  created_at: string;
  updated_at: string;
}

interface DatasetRecord {
  id: string;
  created_at: string;
  payload: Record<string, unknown>;
  properties: Record<string, unknown>;
  source: string;
}

interface PageOf<T> {
  results: T[];
  count: number;
  next: string | null;
  previous: string | null;
}

const PAGE = 50;

export function DatasetList({ identity }: { identity: Identity }) {
  const [search, setSearch] = useState("");
  const [applied, setApplied] = useState("");
  const list = useResource((signal) => api.get<{ datasets: PageOf<Dataset> }>("/v1/observability/datasets", { page_size: 100, q: applied || undefined }, signal), [applied]);
  return (
    <>
      {may(identity, "observability:write") && <NewDataset />}
      <Panel title="Datasets">
        <form
          class="row"
          aria-label="Find datasets"
          onSubmit={(e) => {
            e.preventDefault();
            setApplied(search.trim());
          }}
        >
          <Field label="Name contains" id="dataset-search">
            <input id="dataset-search" value={search} maxLength={200} onInput={(e) => setSearch(e.currentTarget.value)} />
          </Field>
          <div class="field">
            <Button type="submit" kind="primary">
              Find
            </Button>
          </div>
        </form>
        <ErrorNote error={list.error} />
        {list.loading && !list.data ? (
          <Loading />
        ) : (
          <>
            <Table
              caption="Datasets of the workspace"
              columns={[
                { title: "Name", cell: (d: Dataset) => <a href={href("observability", "datasets", d.id)}>{d.name}</a> },
                { title: "Description", cell: (d) => d.description || "—" },
                { title: "Created", cell: (d) => when(d.created_at) },
                { title: "Updated", cell: (d) => when(d.updated_at) },
              ]}
              rows={list.data?.datasets.results ?? []}
              empty="No dataset."
            />
            {list.data && list.data.datasets.count > list.data.datasets.results.length && (
              <p class="muted">
                {count(list.data.datasets.results.length)} of {count(list.data.datasets.count)} shown: narrow the name.
              </p>
            )}
          </>
        )}
      </Panel>
    </>
  );
}

function NewDataset() {
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [error, setError] = useState<string>();
  const create = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    try {
      const dataset = await api.post<Dataset>("/v1/observability/datasets", { name: name.trim(), description });
      navigate(href("observability", "datasets", dataset.id));
    } catch (failure) {
      setError(failureText(failure));
    }
  };
  return (
    <Panel title="New dataset">
      <form onSubmit={create} class="row">
        <Field label="Dataset name" id="dataset-name" hint="5 to 50 characters">
          <input id="dataset-name" required minLength={5} maxLength={50} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
        <Field label="Dataset description" id="dataset-description">
          <input id="dataset-description" maxLength={200} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
        </Field>
        <div class="field">
          <Button type="submit" kind="primary">
            Create dataset
          </Button>
        </div>
      </form>
      <ErrorNote error={error} />
    </Panel>
  );
}

export function DatasetView({ id }: { id: string }) {
  const [page, setPage] = useState(1);
  const dataset = useResource((signal) => api.get<Dataset>(`/v1/observability/datasets/${encodeURIComponent(id)}`, undefined, signal), [id]);
  const records = useResource((signal) => api.get<{ records: PageOf<DatasetRecord> }>(`/v1/observability/datasets/${encodeURIComponent(id)}/records`, { page, page_size: PAGE }, signal), [id, page]);
  const d = dataset.data;
  const r = records.data?.records;
  return (
    <>
      <p>
        <a href={href("observability", "datasets")}>All datasets</a>
      </p>
      <Panel title="About this dataset">
        {dataset.error ? (
          <ErrorNote error={dataset.error} />
        ) : !d ? (
          <Loading />
        ) : (
          <dl class="facts">
            <dt>Name</dt>
            <dd>{d.name}</dd>
            <dt>Description</dt>
            <dd>{d.description || "—"}</dd>
            <dt>Created</dt>
            <dd>{when(d.created_at)}</dd>
            <dt>Records</dt>
            <dd data-testid="record-count">{r ? count(r.count) : "…"}</dd>
          </dl>
        )}
      </Panel>
      <Panel title="Records">
        <ErrorNote error={records.error} />
        {records.loading && !r ? (
          <Loading />
        ) : (
          <Table
            caption="Records of the dataset, oldest first"
            columns={[
              { title: "Record", cell: (x: DatasetRecord) => <span class="mono">{x.id}</span> },
              { title: "Source", cell: (x) => <span class="badge">{x.source}</span> },
              {
                title: "Payload",
                cell: (x) => (
                  <details>
                    <summary>{summaryOf(x.payload)}</summary>
                    <pre tabIndex={0}>{pretty(x.payload)}</pre>
                  </details>
                ),
              },
              { title: "Properties", cell: (x) => (Object.keys(x.properties).length ? <pre class="inline" tabIndex={0}>{pretty(x.properties)}</pre> : <span class="muted">none</span>) },
              { title: "Created", cell: (x) => when(x.created_at) },
            ]}
            rows={r?.results ?? []}
            empty="No record in this dataset."
          />
        )}
        {r && (r.previous || r.next) && (
          <div class="row">
            <Button disabled={!r.previous} onClick={() => setPage(page - 1)}>
              Previous page
            </Button>
            <span class="muted">Page {page}</span>
            <Button disabled={!r.next} onClick={() => setPage(page + 1)}>
              Next page
            </Button>
          </div>
        )}
      </Panel>
    </>
  );
}

/** A payload in a few words: a conversation's last user message, else its keys. */
function summaryOf(payload: Record<string, unknown>): string {
  const messages = payload.messages;
  if (Array.isArray(messages)) {
    const user = [...messages].reverse().find((m: { role?: string; content?: unknown }) => m?.role === "user") as { content?: unknown } | undefined;
    const text = typeof user?.content === "string" ? user.content : "";
    return `${messages.length} message${messages.length === 1 ? "" : "s"}${text ? `: ${text.length > 60 ? `${text.slice(0, 60)}…` : text}` : ""}`;
  }
  const keys = Object.keys(payload);
  return keys.length ? `Fields: ${keys.slice(0, 5).join(", ")}` : "Empty payload";
}
