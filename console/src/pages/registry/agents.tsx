/**
 * Agents (docs/agents.md): the workspace's agents (GET /v1/agents/pages, searched by name or id); one agent's
 * versions (GET .../versions), two of them side by side (GET .../versions/{version}), and its aliases
 * (GET/PUT/DELETE .../aliases). Changing the current version and the aliases needs `agents:write`.
 */
import { useState } from "preact/hooks";
import { api, call } from "../../api.js";
import { href, navigate, type Location } from "../../router.js";
import { may, type Identity } from "../../session.js";
import { when } from "../../ui/format.js";
import { Button, ErrorNote, Field, Loading, Page, Panel, Table } from "../../ui/parts.js";
import { useResource } from "../../ui/use-resource.js";
import { Aliases } from "./aliases.js";
import { shown, SideBySide, type CompareField } from "./compare.js";
import { RegistryTabs } from "./tabs.js";

/** The Agent as GET /v1/agents/{id} answers it (shared/schemas/agent.ts, AgentOut). */
export interface Agent {
  id: string;
  name: string;
  model: string;
  instructions: string | null;
  description: string | null;
  tools: unknown[];
  completion_args: Record<string, unknown>;
  guardrails: unknown[] | null;
  handoffs: string[] | null;
  metadata: Record<string, unknown> | null;
  version: number;
  versions: number[];
  created_at: string;
  updated_at: string;
  deployment_chat: boolean;
  source: string;
  owner_id: string | null;
  version_message: string | null;
}

interface AgentPage {
  data: Agent[];
  next_page_token: string | null;
}

interface AgentAlias {
  alias: string;
  version: number;
  created_at: string;
  updated_at: string;
}

const at = (id: string) => `/v1/agents/${encodeURIComponent(id)}`;
const PAGE_SIZE = 20;
const VERSIONS_PAGE = 100;

export function AgentList({ identity, location }: { identity: Identity; location: Location }) {
  const search = location.params.get("search") ?? "";
  // Keyed by the search: a new search starts again at the first page.
  return <AgentListPage key={search} identity={identity} search={search} />;
}

function AgentListPage({ identity, search }: { identity: Identity; search: string }) {
  const [tokens, setTokens] = useState<(string | undefined)[]>([undefined]);
  const [text, setText] = useState(search);
  const token = tokens[tokens.length - 1];
  const page = useResource((signal) => api.get<AgentPage>("/v1/agents/pages", { page_size: PAGE_SIZE, page_token: token, search: search || undefined }, signal), [token, search]);
  return (
    <Page title="Agents and prompts">
      <RegistryTabs identity={identity} current="agents" />
      <Panel title="Agents">
        <form
          class="row"
          role="search"
          onSubmit={(e) => {
            e.preventDefault();
            navigate(href("registry", "agents", { search: text.trim() || undefined }));
          }}
        >
          <Field label="Search agents" id="agent-search" hint="Part of the name, or of the id">
            <input id="agent-search" type="search" value={text} onInput={(e) => setText(e.currentTarget.value)} />
          </Field>
          <div class="field">
            <Button type="submit">Search</Button>
          </div>
        </form>
        <ErrorNote error={page.error} />
        {!page.data ? (
          page.loading && <Loading />
        ) : (
          <>
            <Table
              caption={search ? `Agents matching “${search}”` : "The workspace's agents, newest first"}
              columns={[
                { title: "Name", cell: (a: Agent) => <a href={href("registry", "agents", a.id)}>{a.name || a.id}</a> },
                { title: "Model", cell: (a) => <code>{a.model}</code> },
                { title: "Current version", cell: (a) => `${a.version} of ${a.versions.length}`, numeric: true },
                { title: "Description", cell: (a) => a.description ?? <span class="muted">—</span> },
                { title: "Changed", cell: (a) => when(a.updated_at) },
              ]}
              rows={page.data.data}
              empty={search ? "No agent matches." : "No agent yet: create one with POST /v1/agents."}
            />
            <Pager back={tokens.length > 1 ? () => setTokens(tokens.slice(0, -1)) : undefined} next={page.data.next_page_token ? () => setTokens([...tokens, page.data!.next_page_token!]) : undefined} />
          </>
        )}
      </Panel>
    </Page>
  );
}

export function Pager({ back, next, label = "Pages" }: { back?: () => void; next?: () => void; label?: string }) {
  if (!back && !next) return null;
  return (
    <div class="row pager" role="group" aria-label={label}>
      <Button disabled={!back} onClick={back}>
        Previous page
      </Button>
      <Button disabled={!next} onClick={next}>
        Next page
      </Button>
    </div>
  );
}

/** completion_args as set: the API fills the unset ones with null (docs/agents.md), which say nothing here. */
const setArgs = (args: Record<string, unknown>) => Object.fromEntries(Object.entries(args).filter(([, v]) => v !== null && v !== undefined));

export const agentFields = (a: Agent | undefined, b: Agent | undefined): CompareField[] => {
  const rows: [string, (x: Agent) => unknown][] = [
    ["Name", (x) => x.name],
    ["Model", (x) => x.model],
    ["Description", (x) => x.description],
    ["Instructions", (x) => x.instructions],
    ["Tools", (x) => x.tools],
    ["Completion arguments", (x) => setArgs(x.completion_args)],
    ["Guardrails", (x) => x.guardrails],
    ["Handoffs", (x) => x.handoffs],
    ["Metadata", (x) => x.metadata],
    ["Version message", (x) => x.version_message],
  ];
  return rows.map(([name, get]) => ({ name, a: a ? shown(get(a)) : null, b: b ? shown(get(b)) : null }));
};

export function AgentDetail({ identity, location, id }: { identity: Identity; location: Location; id: string }) {
  const canWrite = may(identity, "agents:write");
  const agent = useResource((signal) => api.get<Agent>(at(id), undefined, signal), [id]);
  const aliases = useResource((signal) => api.get<AgentAlias[]>(`${at(id)}/aliases`, undefined, signal), [id]);
  const [versionsPage, setVersionsPage] = useState(0);
  const versions = useResource((signal) => api.get<Agent[]>(`${at(id)}/versions`, { page: versionsPage, page_size: VERSIONS_PAGE }, signal), [id, versionsPage]);
  const [switching, setSwitching] = useState<unknown>();

  const all = [...(agent.data?.versions ?? [])].sort((x, y) => y - x);
  const latest = all[0];
  const pick = (name: string, fallback: number | undefined) => {
    const n = Number(location.params.get(name));
    return all.includes(n) ? n : fallback;
  };
  const b = pick("b", latest);
  const a = pick("a", all.find((v) => b !== undefined && v < b) ?? b);
  const versionA = useResource((signal) => (a === undefined ? Promise.resolve(undefined) : api.get<Agent>(`${at(id)}/versions/${a}`, undefined, signal)), [id, a]);
  const versionB = useResource((signal) => (b === undefined ? Promise.resolve(undefined) : api.get<Agent>(`${at(id)}/versions/${b}`, undefined, signal)), [id, b]);
  const compareTo = (next: { a?: number; b?: number }) => navigate(href("registry", "agents", id, { a: String(next.a ?? a), b: String(next.b ?? b) }));

  const reloadAll = () => {
    agent.reload();
    aliases.reload();
    versions.reload();
  };
  const makeCurrent = async (version: number) => {
    setSwitching(undefined);
    try {
      await call("PATCH", `${at(id)}/version`, { query: { version } });
      reloadAll();
    } catch (failure) {
      setSwitching(failure);
    }
  };

  const aliasesOf = (version: number) => (aliases.data ?? []).filter((x) => x.version === version).map((x) => x.alias);
  const title = agent.data ? agent.data.name || agent.data.id : "Agent";
  return (
    <Page title={title}>
      <RegistryTabs identity={identity} current="agents" />
      <p>
        <a href={href("registry", "agents")}>All agents</a>
      </p>
      <ErrorNote error={agent.error} />
      {!agent.data ? (
        agent.loading && <Loading />
      ) : (
        <>
          <Panel title="Agent">
            <dl class="facts">
              <dt>Id</dt>
              <dd>
                <code>{agent.data.id}</code>
              </dd>
              <dt>Current version</dt>
              <dd>
                {agent.data.version} of {agent.data.versions.length}
              </dd>
              <dt>Model</dt>
              <dd>
                <code>{agent.data.model}</code>
              </dd>
              <dt>Created</dt>
              <dd>{when(agent.data.created_at)}</dd>
            </dl>
          </Panel>
          <Panel title="Versions">
            <ErrorNote error={versions.error ?? switching} />
            {!versions.data ? (
              versions.loading && <Loading />
            ) : (
              <>
                <Table
                  caption="The agent's versions, newest first"
                  columns={[
                    {
                      title: "Version",
                      cell: (v: Agent) => (
                        <>
                          {v.version}
                          {v.version === agent.data!.version && (
                            <>
                              {" "}
                              <span class="badge">current</span>
                            </>
                          )}
                        </>
                      ),
                    },
                    { title: "Written", cell: (v) => when(v.updated_at) },
                    { title: "Model", cell: (v) => <code>{v.model}</code> },
                    { title: "Message", cell: (v) => v.version_message ?? <span class="muted">—</span> },
                    { title: "Aliases", cell: (v) => aliasesOf(v.version).join(", ") || <span class="muted">—</span> },
                    ...(canWrite
                      ? [
                          {
                            title: "Current",
                            cell: (v: Agent) =>
                              v.version === agent.data!.version ? (
                                <span class="muted">current</span>
                              ) : (
                                <Button onClick={() => makeCurrent(v.version)}>Make version {v.version} current</Button>
                              ),
                          },
                        ]
                      : []),
                  ]}
                  rows={versions.data}
                />
                <Pager
                  label="Pages of versions"
                  back={versionsPage > 0 ? () => setVersionsPage(versionsPage - 1) : undefined}
                  next={versions.data.length === VERSIONS_PAGE ? () => setVersionsPage(versionsPage + 1) : undefined}
                />
              </>
            )}
          </Panel>
          <Panel title="Compare versions">
            <div class="row">
              {(["a", "b"] as const).map((side) => (
                <Field label={`Version ${side.toUpperCase()}`} id={`compare-${side}`}>
                  <select id={`compare-${side}`} value={String(side === "a" ? a : b)} onChange={(e) => compareTo({ [side]: Number(e.currentTarget.value) })}>
                    {all.map((v) => (
                      <option value={String(v)}>
                        Version {v}
                        {v === agent.data!.version ? " (current)" : ""}
                      </option>
                    ))}
                  </select>
                </Field>
              ))}
            </div>
            <ErrorNote error={versionA.error ?? versionB.error} />
            {!versionA.data || !versionB.data || versionA.data.version !== a || versionB.data.version !== b ? (
              (versionA.loading || versionB.loading) && <Loading />
            ) : (
              <SideBySide
                caption={`Version ${a} and version ${b} side by side`}
                labelA={`Version ${a} (${when(versionA.data.updated_at)})`}
                labelB={`Version ${b} (${when(versionB.data.updated_at)})`}
                fields={agentFields(versionA.data, versionB.data)}
              />
            )}
          </Panel>
          <Panel title="Aliases">
            <ErrorNote error={aliases.error} />
            {!aliases.data ? (
              aliases.loading && <Loading />
            ) : (
              <Aliases
                aliases={aliases.data.map((x) => ({ alias: x.alias, version: x.version, updated: x.updated_at }))}
                versions={all}
                canWrite={canWrite}
                rule="Lower-case letters, digits, '_' and '-', starting with a letter; GET /v1/agents/{id}?agent_version=<alias> reads that version."
                onPut={(alias, version) => call("PUT", `${at(id)}/aliases`, { query: { alias, version } })}
                onRemove={(alias) => call("DELETE", `${at(id)}/aliases`, { query: { alias } })}
                onChanged={() => {
                  aliases.reload();
                }}
              />
            )}
          </Panel>
        </>
      )}
    </Page>
  );
}
