/**
 * The audit log (docs/decisions/0044-audit-log.md): the organization's privileged changes, newest first, from
 * GET /v1/admin/audit-events (`workspaces:admin`), filtered as the route allows (operation, actor, target,
 * workspace, a time range; kept in the hash, so a filtered view can be shared) and paged by its `next_cursor`.
 * Each event's origin and its values before and after are in a `<details>`.
 */
import { useState } from "preact/hooks";
import { api } from "../api.js";
import { href, navigate } from "../router.js";
import { when } from "../ui/format.js";
import { Button, ErrorNote, Field, Loading, Page, Panel, Table } from "../ui/parts.js";
import { useResource } from "../ui/use-resource.js";
import { AUDIT_OPERATIONS } from "../../../shared/schemas/audit-operations.js";
import type { PageProps } from "./index.js";

/** AuditEventOut (shared/schemas/audit.ts). */
interface AuditEvent {
  id: string;
  created_at: string;
  operation: string;
  organization_id: string;
  workspace_id: string | null;
  actor: { type: "user" | "service_account" | "cli" | "system"; id: string; api_key_id: string | null };
  origin: { via: "api" | "cli" | "system"; request_id: string | null; address: string | null; forwarded_by: string | null };
  targets: { type: string; id: string }[];
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

interface AuditPage {
  data: AuditEvent[];
  next_cursor: string | null;
}

const FILTERS = ["operation", "actor", "target", "workspace_id", "since", "until", "page_size"] as const;
type Filters = Partial<Record<(typeof FILTERS)[number], string>>;

const filtersOf = (params: URLSearchParams): Filters => Object.fromEntries(FILTERS.map((name) => [name, params.get(name) ?? undefined]).filter(([, v]) => v));

/** ISO time → a datetime-local input's value, in the reader's time zone (to the minute). */
function localInput(iso: string | undefined): string {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const two = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}`;
}

/** A datetime-local value → ISO; `until` covers its whole minute, since the route's bounds are inclusive. */
function isoOf(local: string, endOfMinute = false): string | undefined {
  if (!local) return undefined;
  const d = new Date(local);
  if (Number.isNaN(d.getTime())) return undefined;
  return new Date(d.getTime() + (endOfMinute ? 59_999 : 0)).toISOString();
}

const ACTOR_KINDS: Record<AuditEvent["actor"]["type"], string> = { user: "User", service_account: "Service account", cli: "CLI", system: "System" };

export function AuditLog({ location }: PageProps) {
  const filters = filtersOf(location.params);
  const key = JSON.stringify(filters);
  return (
    <Page title="Audit log">
      <FilterForm key={key} filters={filters} />
      <Events key={key} filters={filters} />
    </Page>
  );
}

function FilterForm({ filters }: { filters: Filters }) {
  const [form, setForm] = useState({
    operation: filters.operation ?? "",
    actor: filters.actor ?? "",
    target: filters.target ?? "",
    workspace_id: filters.workspace_id ?? "",
    since: localInput(filters.since),
    until: localInput(filters.until),
    page_size: filters.page_size ?? "50",
  });
  const set = (name: keyof typeof form) => (e: { currentTarget: { value: string } }) => setForm({ ...form, [name]: e.currentTarget.value });
  const apply = (e: Event) => {
    e.preventDefault();
    navigate(
      href("audit", {
        operation: form.operation || undefined,
        actor: form.actor.trim() || undefined,
        target: form.target.trim() || undefined,
        workspace_id: form.workspace_id.trim() || undefined,
        since: isoOf(form.since),
        until: isoOf(form.until, true),
        page_size: form.page_size && form.page_size !== "50" ? form.page_size : undefined,
      }),
    );
  };
  return (
    <Panel title="Filters">
      <form class="audit-filters" onSubmit={apply}>
        <Field label="Operation" id="audit-operation">
          <select id="audit-operation" value={form.operation} onChange={set("operation")}>
            <option value="">Any operation</option>
            {AUDIT_OPERATIONS.map((op) => (
              <option value={op}>{op}</option>
            ))}
          </select>
        </Field>
        <Field label="Actor" id="audit-actor" hint="A user, service account or API key id">
          <input id="audit-actor" value={form.actor} autoComplete="off" onInput={set("actor")} />
        </Field>
        <Field label="Target" id="audit-target" hint="Any id the change targeted">
          <input id="audit-target" value={form.target} autoComplete="off" onInput={set("target")} />
        </Field>
        <Field label="Workspace" id="audit-workspace" hint="A workspace id">
          <input id="audit-workspace" value={form.workspace_id} autoComplete="off" onInput={set("workspace_id")} />
        </Field>
        <Field label="From" id="audit-since" hint="Inclusive, your local time">
          <input id="audit-since" type="datetime-local" value={form.since} onInput={set("since")} />
        </Field>
        <Field label="Until" id="audit-until" hint="Inclusive, to the end of that minute">
          <input id="audit-until" type="datetime-local" value={form.until} onInput={set("until")} />
        </Field>
        <Field label="Events per page" id="audit-page-size">
          <input id="audit-page-size" type="number" min={1} max={100} value={form.page_size} onInput={set("page_size")} />
        </Field>
        <div class="row audit-filter-actions">
          <Button type="submit" kind="primary">
            Apply filters
          </Button>
          <Button onClick={() => navigate(href("audit"))}>Clear filters</Button>
        </div>
      </form>
    </Panel>
  );
}

function Events({ filters }: { filters: Filters }) {
  // The cursors of the pages read so far: the last one is the page shown (undefined: the first).
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const page = useResource((signal) => api.get<AuditPage>("/v1/admin/audit-events", { ...filters, cursor }, signal), [cursor]);
  const filtered = Object.keys(filters).some((name) => name !== "page_size");
  const link = (change: Filters) => href("audit", { ...filters, ...change });
  const next = page.data?.next_cursor;
  return (
    <Panel title="Events">
      <ErrorNote error={page.error} />
      {!page.data ? (
        page.loading && <Loading />
      ) : (
        <>
          <p class="muted" aria-live="polite">
            Page {cursors.length}: {page.data.data.length} {page.data.data.length === 1 ? "event" : "events"}
            {filtered ? " matching the filters" : ""}, newest first.
          </p>
          <div class="audit-events">
            <Table
              caption="Audit events, newest first"
              columns={[
                { title: "When", cell: (e: AuditEvent) => <time dateTime={e.created_at}>{when(e.created_at)}</time> },
                { title: "Operation", cell: (e) => <code class="audit-operation">{e.operation}</code> },
                {
                  title: "Actor",
                  cell: (e) => (
                    <>
                      {ACTOR_KINDS[e.actor.type]}{" "}
                      <a href={link({ actor: e.actor.id })} aria-label={`Only changes by ${e.actor.id}`}>
                        <code>{e.actor.id}</code>
                      </a>
                      {e.actor.api_key_id && (
                        <div class="muted">
                          key{" "}
                          <a href={link({ actor: e.actor.api_key_id })} aria-label={`Only changes with key ${e.actor.api_key_id}`}>
                            <code>{e.actor.api_key_id}</code>
                          </a>
                        </div>
                      )}
                    </>
                  ),
                },
                {
                  title: "Targets",
                  cell: (e) =>
                    e.targets.length === 0 ? (
                      <span class="muted">—</span>
                    ) : (
                      <ul class="plain">
                        {e.targets.map((t) => (
                          <li>
                            {t.type}{" "}
                            <a href={link({ target: t.id })} aria-label={`Only changes to ${t.type} ${t.id}`}>
                              <code>{t.id}</code>
                            </a>
                          </li>
                        ))}
                      </ul>
                    ),
                },
                { title: "Workspace", cell: (e) => (e.workspace_id ? <code>{e.workspace_id}</code> : <span class="muted">organization</span>) },
                { title: "Details", cell: (e) => <EventDetails event={e} /> },
              ]}
              rows={page.data.data}
              empty={filtered ? "No event matches these filters." : "No event recorded yet."}
            />
          </div>
          {(cursors.length > 1 || next) && (
            <div class="row pager" role="group" aria-label="Pages of events">
              <Button disabled={cursors.length <= 1} onClick={() => setCursors(cursors.slice(0, -1))}>
                Newer events
              </Button>
              <Button disabled={!next} onClick={() => next && setCursors([...cursors, next])}>
                Older events
              </Button>
            </div>
          )}
        </>
      )}
    </Panel>
  );
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

function EventDetails({ event }: { event: AuditEvent }) {
  return (
    <details class="audit-details">
      <summary>Details</summary>
      <dl class="facts">
        <dt>Event</dt>
        <dd>
          <code>{event.id}</code>
        </dd>
        <dt>Via</dt>
        <dd>{event.origin.via}</dd>
        {event.origin.request_id && (
          <>
            <dt>Request</dt>
            <dd>
              <code>{event.origin.request_id}</code>
            </dd>
          </>
        )}
        {event.origin.address && (
          <>
            <dt>From</dt>
            <dd>
              {event.origin.address}
              {event.origin.forwarded_by ? ` (forwarded by ${event.origin.forwarded_by})` : ""}
            </dd>
          </>
        )}
      </dl>
      <p class="audit-values-title">Before</p>
      {event.before ? <pre data-testid="audit-before">{json(event.before)}</pre> : <p class="muted">Nothing (it did not exist).</p>}
      <p class="audit-values-title">After</p>
      {event.after ? <pre data-testid="audit-after">{json(event.after)}</pre> : <p class="muted">Nothing (it is gone).</p>}
    </details>
  );
}
