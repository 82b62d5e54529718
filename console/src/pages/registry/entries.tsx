/**
 * Prompts and skills (docs/registries.md): one registry, two kinds. The list (GET /v2/{kind}, newest first,
 * paged by `nextPageToken`); one entry (GET /v2/{kind}/{id}) with its versions (GET .../versions, every version
 * with its definition), two of them side by side, and its aliases, which live on the versions: moving or
 * creating one is PATCH .../versions/{version} with that version's alias set (`registry:write`).
 */
import { useState } from "preact/hooks";
import { api } from "../../api.js";
import { href, navigate, type Location } from "../../router.js";
import { may, type Identity } from "../../session.js";
import { when } from "../../ui/format.js";
import { ErrorNote, Field, Loading, Page, Panel, Table } from "../../ui/parts.js";
import { useResource } from "../../ui/use-resource.js";
import { Pager } from "./agents.js";
import { Aliases } from "./aliases.js";
import { shown, SideBySide, type CompareField } from "./compare.js";
import { RegistryTabs } from "./tabs.js";

/** A prompt's or skill's definition, as either kind answers it (shared/schemas/prompt.ts, skill.ts). */
interface Definition {
  content?: string;
  variables?: { name: string }[];
  description?: string;
  body?: string;
  assets?: Record<string, { rawContent?: string; textContent?: string; isExecutable?: boolean }>;
}

/** PromptOut / SkillOut: null fields are omitted. */
interface Entry {
  id: string;
  name: string;
  definition?: Definition;
  version?: number;
  notes?: string;
  aliases?: string[];
  sharingScope?: "private" | "workspace";
  createdAt?: string;
  updatedAt?: string;
  latestVersion?: number;
  title?: string;
  description?: string;
}

interface EntryVersion {
  version: number;
  definition?: Definition;
  notes?: string;
  aliases: string[];
  createdAt: string;
}

interface Kind {
  id: "prompts" | "skills";
  /** "Prompt", "Skill". */
  singular: string;
  plural: string;
  /** The definition's fields, side by side. */
  fields: (d: Definition | undefined) => [string, unknown][];
}

const KINDS: Record<Kind["id"], Kind> = {
  prompts: {
    id: "prompts",
    singular: "Prompt",
    plural: "Prompts",
    fields: (d) => [
      ["Content", d?.content],
      ["Variables", d?.variables?.map((v) => v.name).join(", ") || null],
    ],
  },
  skills: {
    id: "skills",
    singular: "Skill",
    plural: "Skills",
    fields: (d) => [
      ["Description", d?.description],
      ["Body", d?.body],
      ["Assets", d?.assets && Object.keys(d.assets).length > 0 ? d.assets : null],
    ],
  },
};

const base = (kind: Kind) => `/v2/${kind.id}`;
const PAGE_SIZE = 20;

export function EntryList({ identity, kind: kindId }: { identity: Identity; kind: Kind["id"] }) {
  const kind = KINDS[kindId];
  return <EntryListPage key={kind.id} identity={identity} kind={kind} />;
}

function EntryListPage({ identity, kind }: { identity: Identity; kind: Kind }) {
  const [tokens, setTokens] = useState<(string | undefined)[]>([undefined]);
  const token = tokens[tokens.length - 1];
  const page = useResource((signal) => api.get<{ data: Entry[]; nextPageToken?: string }>(base(kind), { pageSize: PAGE_SIZE, pageToken: token }, signal), [kind.id, token]);
  const next = page.data?.nextPageToken;
  return (
    <Page title="Agents and prompts">
      <RegistryTabs identity={identity} current={kind.id} />
      <Panel title={kind.plural}>
        <ErrorNote error={page.error} />
        {!page.data ? (
          page.loading && <Loading />
        ) : (
          <>
            <Table
              caption={`${kind.plural} you can see, newest first`}
              columns={[
                { title: "Name", cell: (e: Entry) => <a href={href("registry", kind.id, e.id)}>{e.name}</a> },
                ...(kind.id === "prompts" ? [{ title: "Title", cell: (e: Entry) => e.title ?? <span class="muted">—</span> }] : []),
                { title: "Latest version", cell: (e) => e.latestVersion ?? "—", numeric: true },
                { title: "Aliases", cell: (e) => e.aliases?.join(", ") || <span class="muted">—</span> },
                { title: "Shared", cell: (e) => (e.sharingScope === "workspace" ? "with the workspace" : "private") },
                { title: "Changed", cell: (e) => when(e.updatedAt) },
              ]}
              rows={page.data.data}
              empty={`No ${kind.singular.toLowerCase()} you can see yet: create one with POST ${base(kind)}.`}
            />
            <Pager back={tokens.length > 1 ? () => setTokens(tokens.slice(0, -1)) : undefined} next={next ? () => setTokens([...tokens, next]) : undefined} />
          </>
        )}
      </Panel>
    </Page>
  );
}

const versionFields = (kind: Kind, a: EntryVersion | undefined, b: EntryVersion | undefined): CompareField[] => {
  const left = kind.fields(a?.definition);
  const right = kind.fields(b?.definition);
  return [
    ...left.map(([name, value], n) => ({ name, a: a ? shown(value) : null, b: b ? shown(right[n]![1]) : null })),
    { name: "Notes", a: shown(a?.notes), b: shown(b?.notes) },
  ];
};

export function EntryDetail({ identity, location, kind: kindId, id }: { identity: Identity; location: Location; kind: Kind["id"]; id: string }) {
  const kind = KINDS[kindId];
  const path = `${base(kind)}/${encodeURIComponent(id)}`;
  const canWrite = may(identity, "registry:write");
  const entry = useResource((signal) => api.get<Entry>(path, undefined, signal), [path]);
  const versions = useResource((signal) => api.get<{ data: EntryVersion[] }>(`${path}/versions`, undefined, signal), [path]);

  const list = [...(versions.data?.data ?? [])].sort((x, y) => y.version - x.version);
  const all = list.map((v) => v.version);
  const pick = (name: string, fallback: number | undefined) => {
    const n = Number(location.params.get(name));
    return all.includes(n) ? n : fallback;
  };
  const b = pick("b", all[0]);
  const a = pick("a", all.find((v) => b !== undefined && v < b) ?? b);
  const versionA = list.find((v) => v.version === a);
  const versionB = list.find((v) => v.version === b);
  const compareTo = (next: { a?: number; b?: number }) => navigate(href("registry", kind.id, id, { a: String(next.a ?? a), b: String(next.b ?? b) }));

  /** A version's alias set changed: listed aliases move there, the others on it are removed (docs/registries.md). */
  const setAliases = (version: number, values: string[]) => api.patch(`${path}/versions/${version}`, { aliases: { values } });
  const aliasRows = list.flatMap((v) => v.aliases.map((alias) => ({ alias, version: v.version })));

  const title = entry.data ? entry.data.name : kind.singular;
  return (
    <Page title={title}>
      <RegistryTabs identity={identity} current={kind.id} />
      <p>
        <a href={href("registry", kind.id)}>All {kind.plural.toLowerCase()}</a>
      </p>
      <ErrorNote error={entry.error} />
      {entry.data && (
        <Panel title={kind.singular}>
          <dl class="facts">
            <dt>Id</dt>
            <dd>
              <code>{entry.data.id}</code>
            </dd>
            {entry.data.title && (
              <>
                <dt>Title</dt>
                <dd>{entry.data.title}</dd>
              </>
            )}
            {entry.data.description && (
              <>
                <dt>Description</dt>
                <dd>{entry.data.description}</dd>
              </>
            )}
            <dt>Latest version</dt>
            <dd>{entry.data.latestVersion ?? "—"}</dd>
            <dt>Shared</dt>
            <dd>{entry.data.sharingScope === "workspace" ? "with the workspace" : "private"}</dd>
            <dt>Created</dt>
            <dd>{when(entry.data.createdAt)}</dd>
          </dl>
        </Panel>
      )}
      <Panel title="Versions">
        <ErrorNote error={versions.error} />
        {!versions.data ? (
          versions.loading && <Loading />
        ) : (
          <Table
            caption={`The ${kind.singular.toLowerCase()}'s versions, newest first`}
            columns={[
              { title: "Version", cell: (v: EntryVersion) => v.version },
              { title: "Written", cell: (v) => when(v.createdAt) },
              { title: "Notes", cell: (v) => v.notes ?? <span class="muted">—</span> },
              { title: "Aliases", cell: (v) => v.aliases.join(", ") || <span class="muted">—</span> },
            ]}
            rows={list}
          />
        )}
      </Panel>
      {versions.data && (
        <Panel title="Compare versions">
          <div class="row">
            <Field label="Version A" id="compare-a">
              <select id="compare-a" value={String(a)} onChange={(e) => compareTo({ a: Number(e.currentTarget.value) })}>
                {all.map((v) => (
                  <option value={String(v)}>Version {v}</option>
                ))}
              </select>
            </Field>
            <Field label="Version B" id="compare-b">
              <select id="compare-b" value={String(b)} onChange={(e) => compareTo({ b: Number(e.currentTarget.value) })}>
                {all.map((v) => (
                  <option value={String(v)}>Version {v}</option>
                ))}
              </select>
            </Field>
          </div>
          {versionA && versionB && (
            <SideBySide
              caption={`Version ${a} and version ${b} side by side`}
              labelA={`Version ${a} (${when(versionA.createdAt)})`}
              labelB={`Version ${b} (${when(versionB.createdAt)})`}
              fields={versionFields(kind, versionA, versionB)}
            />
          )}
        </Panel>
      )}
      {versions.data && (
        <Panel title="Aliases">
          <Aliases
            aliases={aliasRows}
            versions={all}
            canWrite={canWrite}
            rule="1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit; GET with ?alias= reads that version."
            onPut={(alias, version) => setAliases(version, [...new Set([...(list.find((v) => v.version === version)?.aliases ?? []), alias])])}
            onRemove={async (alias) => {
              const holder = list.find((v) => v.aliases.includes(alias));
              if (holder) await setAliases(holder.version, holder.aliases.filter((x) => x !== alias));
            }}
            onChanged={() => {
              versions.reload();
              entry.reload();
            }}
          />
        </Panel>
      )}
    </Page>
  );
}
