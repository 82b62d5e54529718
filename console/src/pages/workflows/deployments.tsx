/**
 * Deployments (GET /v1/workflows/deployments, active ones or all) and one deployment's workers
 * (GET /v1/workflows/deployments/{name}/workers): which are live (a heartbeat within the last 50 s) and when
 * each was last heard from. Read-only: the verbs (start, stop, restart) are managed deployments' and not here.
 */
import { useState } from "preact/hooks";
import { api } from "../../api.js";
import { href } from "../../router.js";
import { when } from "../../ui/format.js";
import { Button, ErrorNote, Field, Loading, Panel, Table } from "../../ui/parts.js";
import { useResource } from "../../ui/use-resource.js";

interface Deployment {
  id: string;
  name: string;
  is_active: boolean;
  is_hardened: boolean;
  created_at: string;
  updated_at: string;
  last_heartbeat: string | null;
  worker_count: number;
  active_worker_count: number;
  locations: string[];
  stopped: boolean;
}

interface Worker {
  name: string;
  created_at: string;
  last_heartbeat: string;
  is_active: boolean;
  location: { location_type: string } | null;
}

const enc = encodeURIComponent;

export function Deployments({ selected }: { selected?: string }) {
  const [all, setAll] = useState(true);
  const list = useResource((signal) => api.get<{ deployments: Deployment[] }>("/v1/workflows/deployments", { active_only: !all, limit: 100 }, signal), [all]);
  return (
    <>
      <Panel title="Deployments">
        <div class="row">
          <Field label="Show" id="deployments-show">
            <select id="deployments-show" value={all ? "all" : "active"} onChange={(e) => setAll(e.currentTarget.value === "all")}>
              <option value="all">All deployments</option>
              <option value="active">Only those with a live worker</option>
            </select>
          </Field>
          <div class="field">
            <Button onClick={list.reload}>Refresh</Button>
          </div>
        </div>
        <ErrorNote error={list.error} />
        {list.loading && !list.data ? (
          <Loading />
        ) : (
          <Table
            caption="Workflow deployments"
            columns={[
              { title: "Deployment", cell: (d: Deployment) => <a href={href("workflows", "deployments", d.name)} aria-current={d.name === selected ? "true" : undefined}>{d.name}</a> },
              { title: "State", cell: (d) => <span class="badge">{d.stopped ? "stopped" : d.is_active ? "live" : "no live worker"}</span> },
              { title: "Live workers", cell: (d) => `${d.active_worker_count} of ${d.worker_count}`, numeric: true },
              { title: "Last heartbeat", cell: (d) => when(d.last_heartbeat) },
              { title: "Hardened", cell: (d) => (d.is_hardened ? "yes" : "no") },
              { title: "Locations", cell: (d) => d.locations.join(", ") || "—" },
            ]}
            rows={list.data?.deployments ?? []}
            empty="No deployment: a worker that registers makes its deployment."
          />
        )}
      </Panel>
      {selected && <Workers name={selected} />}
    </>
  );
}

function Workers({ name }: { name: string }) {
  const workers = useResource((signal) => api.get<{ workers: Worker[] }>(`/v1/workflows/deployments/${enc(name)}/workers`, { limit: 100 }, signal), [name]);
  return (
    <Panel title={`Workers of ${name}`}>
      <ErrorNote error={workers.error} />
      {workers.loading && !workers.data ? (
        <Loading />
      ) : (
        <Table
          caption={`Workers of deployment ${name}`}
          columns={[
            { title: "Worker", cell: (w: Worker) => w.name },
            { title: "State", cell: (w) => <span class="badge">{w.is_active ? "live" : "gone"}</span> },
            { title: "Last heartbeat", cell: (w) => when(w.last_heartbeat) },
            { title: "First seen", cell: (w) => when(w.created_at) },
            { title: "Location", cell: (w) => w.location?.location_type ?? "—" },
          ]}
          rows={workers.data?.workers ?? []}
          empty="No worker has registered into this deployment."
        />
      )}
      <Button onClick={workers.reload}>Refresh workers</Button>
    </Panel>
  );
}
