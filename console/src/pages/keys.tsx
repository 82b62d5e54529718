/**
 * Keys and service accounts. Users' keys (`/v1/admin/api-keys`, admins) and service accounts with their roles
 * and keys (`/v1/service-accounts`, `service-accounts:manage`), in one workspace: the key's own, or (admins)
 * any of the organization's. A new key's secret is shown once, as the API answers it once.
 */
import { useState } from "preact/hooks";
import { api } from "../api.js";
import { may } from "../session.js";
import { when } from "../ui/format.js";
import { Button, ConfirmButton, ErrorNote, Field, Loading, Page, Panel, SecretOnce, Table } from "../ui/parts.js";
import { useAction } from "../ui/use-action.js";
import { useResource } from "../ui/use-resource.js";
import type { PageProps } from "./index.js";
import { WorkspacePicker } from "../ui/workspace-picker.js";

export interface ApiKey {
  id: string;
  name: string;
  preview: string;
  type: "user" | "service_account";
  principal_id: string;
  user_id: string | null;
  workspace_id: string;
  admin: boolean;
  roles: string[];
  state: "active" | "revoked" | "expired";
  created_at: string;
  revoked_at: string | null;
  expires_at: string | null;
}

interface Member {
  user_id: string;
  email: string | null;
  roles: string[];
}

interface ServiceAccount {
  id: string;
  name: string;
  description: string | null;
  created_at: string;
}

export function Keys({ identity, location }: PageProps) {
  const admin = may(identity, "workspaces:admin");
  const workspace = location.params.get("workspace") ?? identity.workspace?.id ?? "";
  return (
    <Page title="Keys and service accounts" actions={admin ? <WorkspacePicker page="keys" current={workspace} /> : undefined}>
      {admin && <UserKeys workspace={workspace} />}
      {may(identity, "service-accounts:manage") && <ServiceAccounts workspace={workspace} />}
    </Page>
  );
}

function UserKeys({ workspace }: { workspace: string }) {
  const [showRevoked, setShowRevoked] = useState(false);
  const keys = useResource((signal) => api.get<{ data: ApiKey[] }>("/v1/admin/api-keys", { workspace_id: workspace, include_revoked: showRevoked, page_size: 200 }, signal), [workspace, showRevoked]);
  const members = useResource((signal) => api.get<{ data: Member[] }>(`/v1/admin/workspaces/${workspace}/users`, { page_size: 1000 }, signal), [workspace]);
  const [user, setUser] = useState("");
  const [name, setName] = useState("");
  const [created, setCreated] = useState<{ name: string; key: string }>();
  const { error, act } = useAction();

  const create = act(async () => {
    const key = await api.post<ApiKey & { key: string }>("/v1/admin/api-keys", { workspace_id: workspace, user_id: user, ...(name.trim() ? { name: name.trim() } : {}) });
    setCreated({ name: key.name, key: key.key });
    setName("");
    keys.reload();
  });
  const revoke = (id: string) =>
    act(async () => {
      await api.delete(`/v1/admin/api-keys/${id}`);
      keys.reload();
    })();

  return (
    <Panel title="API keys">
      <form class="row" onSubmit={create}>
        <Field label="User" id="key-user">
          <select id="key-user" required value={user} onChange={(e) => setUser(e.currentTarget.value)}>
            <option value="">Choose a member…</option>
            {(members.data?.data ?? []).map((m) => (
              <option value={m.user_id}>{m.email ?? m.user_id}</option>
            ))}
          </select>
        </Field>
        <Field label="Key name" id="key-name">
          <input id="key-name" value={name} placeholder="the user's email when empty" onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
        <div class="field">
          <Button type="submit" kind="primary" disabled={!user}>
            Create key
          </Button>
        </div>
      </form>
      {created && <SecretOnce label={`New key “${created.name}”`} value={created.key} />}
      <ErrorNote error={error ?? keys.error ?? members.error} />
      <label class="inline">
        <input type="checkbox" checked={showRevoked} onChange={(e) => setShowRevoked(e.currentTarget.checked)} /> Show revoked keys
      </label>
      {keys.loading && !keys.data ? <Loading /> : (
        <Table
          caption="API keys of the workspace"
          rows={keys.data?.data ?? []}
          empty="No key in this workspace."
          columns={[
            { title: "Name", cell: (k) => k.name },
            { title: "Preview", cell: (k) => <code>{k.preview}…</code> },
            { title: "Holder", cell: (k) => (k.admin ? "admin key" : k.type === "user" ? (members.data?.data.find((m) => m.user_id === k.user_id)?.email ?? k.user_id) : `service account ${k.principal_id}`) },
            { title: "State", cell: (k) => <span class="badge">{k.state}</span> },
            { title: "Created", cell: (k) => when(k.created_at) },
            { title: "Actions", cell: (k) => (k.state === "active" ? <ConfirmButton label={`Revoke ${k.name}`} confirm="Revoke now" onConfirm={() => revoke(k.id)} /> : null) },
          ]}
        />
      )}
    </Panel>
  );
}

function ServiceAccounts({ workspace }: { workspace: string }) {
  const accounts = useResource((signal) => api.get<{ items: ServiceAccount[] }>("/v1/service-accounts", { workspace_id: workspace }, signal), [workspace]);
  const [name, setName] = useState("");
  const [open, setOpen] = useState<string>();
  const { error, act } = useAction();
  const create = act(async () => {
    const account = await api.post<ServiceAccount>("/v1/service-accounts", { name: name.trim(), workspace_id: workspace });
    setName("");
    setOpen(account.id);
    accounts.reload();
  });
  return (
    <Panel title="Service accounts">
      <form class="row" onSubmit={create}>
        <Field label="Service account name" id="sa-name">
          <input id="sa-name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
        <div class="field">
          <Button type="submit" kind="primary" disabled={!name.trim()}>
            Create service account
          </Button>
        </div>
      </form>
      <ErrorNote error={error ?? accounts.error} />
      {accounts.loading && !accounts.data ? <Loading /> : (
        <Table
          caption="Service accounts of the workspace"
          rows={accounts.data?.items ?? []}
          empty="No service account in this workspace."
          columns={[
            { title: "Name", cell: (a) => a.name },
            { title: "Created", cell: (a) => when(a.created_at) },
            { title: "Details", cell: (a) => <Button aria-expanded={open === a.id} onClick={() => setOpen(open === a.id ? undefined : a.id)}>{open === a.id ? `Close ${a.name}` : `Manage ${a.name}`}</Button> },
          ]}
        />
      )}
      {open && <ServiceAccountDetail id={open} name={accounts.data?.items.find((a) => a.id === open)?.name ?? open} workspace={workspace} />}
    </Panel>
  );
}

function ServiceAccountDetail({ id, name, workspace }: { id: string; name: string; workspace: string }) {
  const assignable = useResource((signal) => api.get<{ items: { uuid: string; name: string; description: string }[] }>("/v1/service-accounts/assignable-roles", { workspace_id: workspace }, signal), [workspace]);
  const roles = useResource((signal) => api.get<{ items: { role_id: string }[] }>(`/v1/service-accounts/${id}/roles`, undefined, signal), [id]);
  const keys = useResource((signal) => api.get<{ items: ApiKey[] }>(`/v1/service-accounts/${id}/keys`, undefined, signal), [id]);
  const [chosen, setChosen] = useState<string[]>();
  const [created, setCreated] = useState<string>();
  const { error, act } = useAction();
  const held = chosen ?? (roles.data?.items ?? []).map((r) => r.role_id);
  const saveRoles = act(async () => {
    await api.put(`/v1/service-accounts/${id}/roles`, { role_ids: held });
    setChosen(undefined);
    roles.reload();
  });
  const createKey = act(async () => {
    const key = await api.post<{ key: string }>(`/v1/service-accounts/${id}/keys`, {});
    setCreated(key.key);
    keys.reload();
  });
  return (
    <section class="panel" aria-label={`Service account ${name}`}>
      <h3>{name}</h3>
      <ErrorNote error={error ?? roles.error ?? keys.error ?? assignable.error} />
      <fieldset>
        <legend>Roles in the workspace</legend>
        {(assignable.data?.items ?? []).map((role) => (
          <label class="inline">
            <input
              type="checkbox"
              checked={held.includes(role.uuid) || held.includes(role.name)}
              onChange={(e) => setChosen(e.currentTarget.checked ? [...held, role.uuid] : held.filter((r) => r !== role.uuid && r !== role.name))}
            />{" "}
            {role.name}
          </label>
        ))}
        <Button onClick={saveRoles} disabled={chosen === undefined}>
          Save roles
        </Button>
      </fieldset>
      <Button kind="primary" onClick={createKey}>
        Create a key for {name}
      </Button>
      {created && <SecretOnce label={`New key of ${name}`} value={created} />}
      <Table
        caption={`Keys of ${name}`}
        rows={keys.data?.items ?? []}
        empty="No key yet."
        columns={[
          { title: "Name", cell: (k) => k.name },
          { title: "Preview", cell: (k) => <code>{k.preview}…</code> },
          { title: "Created", cell: (k) => when(k.created_at) },
          { title: "Revoked", cell: (k) => when(k.revoked_at) },
          { title: "Actions", cell: (k) => (k.revoked_at ? null : <ConfirmButton label={`Revoke ${k.name}`} confirm="Revoke now" onConfirm={act(async () => { await api.delete(`/v1/service-accounts/${id}/keys/${k.id}`); keys.reload(); })} />) },
        ]}
      />
    </section>
  );
}
