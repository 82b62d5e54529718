import { api } from "../api.js";
import { href, navigate } from "../router.js";
import { useResource } from "./use-resource.js";

interface Workspace {
  uuid: string;
  name: string;
}

/** The organization's workspaces (admins), choosing which one a page shows: `?workspace=` in its hash. */
export function WorkspacePicker({ page, current }: { page: string; current: string }) {
  const workspaces = useResource((signal) => api.get<{ items: Workspace[] }>("/v1/admin/workspaces", { page_size: 1000 }, signal), []);
  return (
    <label class="inline">
      Workspace{" "}
      <select value={current} onChange={(e) => navigate(href(page, { workspace: e.currentTarget.value }))}>
        {(workspaces.data?.items ?? [{ uuid: current, name: current }]).map((w) => (
          <option value={w.uuid}>{w.name}</option>
        ))}
      </select>
    </label>
  );
}
