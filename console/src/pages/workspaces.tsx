/**
 * Workspaces and members (admins): the organization's workspaces (create, archive), the chosen one's members
 * with their roles (add, change, remove), and the organization's users (create, as `npm run users -- create`).
 */
import { useState } from "preact/hooks";
import { api } from "../api.js";
import { href } from "../router.js";
import { when } from "../ui/format.js";
import { Button, ConfirmButton, ErrorNote, Field, Loading, Page, Panel, Table } from "../ui/parts.js";
import { useAction } from "../ui/use-action.js";
import { useResource } from "../ui/use-resource.js";
import type { PageProps } from "./index.js";

interface Workspace {
  uuid: string;
  name: string;
  description: string | null;
  members_count: number | null;
  is_default: boolean;
}

interface User {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  organization_roles: string[];
  created_at: string;
}

interface Member {
  user_id: string;
  email: string | null;
  roles: string[];
  added_at: string;
}

/** The workspace roles a member may be given (the API's `role_names`). */
const WORKSPACE_ROLES = ["user", "contributor", "workspace_admin", "billing", "observability_viewer", "workflow_executor", "workspace_contributor", "dev", "dev_contributor", "cloud_user", "mistral_code_user"];
const ORGANIZATION_ROLES = ["member", "billing_manager", "organization_admin"];

export function Workspaces({ identity, location }: PageProps) {
  const chosen = location.params.get("workspace") ?? identity.workspace?.id ?? "";
  const workspaces = useResource((signal) => api.get<{ items: Workspace[] }>("/v1/admin/workspaces", { page_size: 1000 }, signal), []);
  const users = useResource((signal) => api.get<{ data: User[] }>("/v1/admin/users", { page_size: 1000 }, signal), []);
  const [name, setName] = useState("");
  const [admin, setAdmin] = useState("");
  const { error, act } = useAction();
  const create = act(async () => {
    await api.post("/v1/admin/workspaces", { name: name.trim(), admin_user_id: admin });
    setName("");
    workspaces.reload();
  });
  const current = workspaces.data?.items.find((w) => w.uuid === chosen);
  return (
    <Page title="Workspaces and members">
      <Panel title="Workspaces">
        <form class="row" onSubmit={create}>
          <Field label="New workspace name" id="workspace-name">
            <input id="workspace-name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </Field>
          <Field label="Its admin" id="workspace-admin">
            <select id="workspace-admin" required value={admin} onChange={(e) => setAdmin(e.currentTarget.value)}>
              <option value="">Choose a user…</option>
              {(users.data?.data ?? []).map((u) => (
                <option value={u.id}>{u.email}</option>
              ))}
            </select>
          </Field>
          <div class="field">
            <Button type="submit" kind="primary" disabled={!name.trim() || !admin}>
              Create workspace
            </Button>
          </div>
        </form>
        <ErrorNote error={error ?? workspaces.error} />
        {workspaces.loading && !workspaces.data ? <Loading /> : (
          <Table
            caption="Workspaces of the organization"
            rows={workspaces.data?.items ?? []}
            columns={[
              { title: "Name", cell: (w) => <a href={href("workspaces", { workspace: w.uuid })} aria-current={w.uuid === chosen ? "true" : undefined}>{w.name}</a> },
              { title: "Members", cell: (w) => w.members_count ?? "—", numeric: true },
              { title: "Default", cell: (w) => (w.is_default ? "yes" : "") },
              { title: "Actions", cell: (w) => (w.is_default || w.uuid === identity.workspace?.id ? null : <ConfirmButton label={`Archive ${w.name}`} confirm="Archive now" onConfirm={act(async () => { await api.delete(`/v1/admin/workspaces/${w.uuid}`); workspaces.reload(); })} />) },
            ]}
          />
        )}
      </Panel>
      {chosen && <Members workspace={chosen} name={current?.name ?? chosen} users={users.data?.data ?? []} onChange={workspaces.reload} />}
      <Users users={users.data?.data} error={users.error} reload={users.reload} />
    </Page>
  );
}

function Members({ workspace, name, users, onChange }: { workspace: string; name: string; users: User[]; onChange: () => void }) {
  const members = useResource((signal) => api.get<{ data: Member[] }>(`/v1/admin/workspaces/${workspace}/users`, { page_size: 1000 }, signal), [workspace]);
  const [user, setUser] = useState("");
  const [role, setRole] = useState("user");
  const { error, act: run } = useAction();
  // Every change here moves the member list and the workspaces' member counts.
  const act = (work: () => Promise<unknown>) =>
    run(async () => {
      await work();
      members.reload();
      onChange();
    });
  const add = act(async () => {
    await api.post(`/v1/admin/workspaces/${workspace}/add-users`, { members: [{ user_uuid: user, role_names: [role] }] });
    setUser("");
  });
  const outside = users.filter((u) => !(members.data?.data ?? []).some((m) => m.user_id === u.id));
  return (
    <Panel title={`Members of ${name}`}>
      <form class="row" onSubmit={add}>
        <Field label="User to add" id="member-user">
          <select id="member-user" required value={user} onChange={(e) => setUser(e.currentTarget.value)}>
            <option value="">Choose a user…</option>
            {outside.map((u) => (
              <option value={u.id}>{u.email}</option>
            ))}
          </select>
        </Field>
        <Field label="Role" id="member-role">
          <select id="member-role" value={role} onChange={(e) => setRole(e.currentTarget.value)}>
            {WORKSPACE_ROLES.map((r) => (
              <option value={r}>{r}</option>
            ))}
          </select>
        </Field>
        <div class="field">
          <Button type="submit" kind="primary" disabled={!user}>
            Add member
          </Button>
        </div>
      </form>
      <ErrorNote error={error ?? members.error} />
      {members.loading && !members.data ? <Loading /> : (
        <Table
          caption={`Members of ${name}`}
          rows={members.data?.data ?? []}
          empty="No member yet."
          columns={[
            { title: "User", cell: (m) => m.email ?? m.user_id },
            { title: "Roles", cell: (m) => m.roles.join(", ") },
            { title: "Added", cell: (m) => when(m.added_at) },
            {
              title: "Actions",
              cell: (m) => (
                <ConfirmButton
                  label={`Remove ${m.email ?? m.user_id}`}
                  confirm="Remove now"
                  onConfirm={act(async () => {
                    await api.delete(`/v1/admin/workspaces/${workspace}/remove-users`, undefined, { members: [{ user_uuid: m.user_id }] });
                  })}
                />
              ),
            },
          ]}
        />
      )}
    </Panel>
  );
}

function Users({ users, error: loadError, reload }: { users: User[] | undefined; error: Error | undefined; reload: () => void }) {
  const [email, setEmail] = useState("");
  const [role, setRole] = useState("member");
  const { error, act } = useAction();
  const create = act(async () => {
    await api.post("/v1/admin/users", { email: email.trim(), organization_roles: [role] });
    setEmail("");
    reload();
  });
  return (
    <Panel title="Users of the organization">
      <form class="row" onSubmit={create}>
        <Field label="Email" id="user-email">
          <input id="user-email" type="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </Field>
        <Field label="Organization role" id="user-role">
          <select id="user-role" value={role} onChange={(e) => setRole(e.currentTarget.value)}>
            {ORGANIZATION_ROLES.map((r) => (
              <option value={r}>{r}</option>
            ))}
          </select>
        </Field>
        <div class="field">
          <Button type="submit" kind="primary" disabled={!email.trim()}>
            Create user
          </Button>
        </div>
      </form>
      <ErrorNote error={error ?? loadError} />
      {!users ? <Loading /> : (
        <Table
          caption="Users of the organization"
          rows={users}
          empty="No user yet."
          columns={[
            { title: "Email", cell: (u) => u.email },
            { title: "Name", cell: (u) => [u.first_name, u.last_name].filter(Boolean).join(" ") },
            { title: "Roles", cell: (u) => u.organization_roles.join(", ") },
            { title: "Created", cell: (u) => when(u.created_at) },
          ]}
        />
      )}
    </Panel>
  );
}
