import { expect } from "vitest";
import { librariesClient } from "../../support/libraries-client.js";
import { fulfilled, invariant, range } from "../invariant.js";

const WRITERS = 10;

invariant({
  name: `libraries: ${WRITERS} parallel shares with distinct workspaces all land, each once, and the head counts every one`,
  writers: WRITERS,
  async setup({ api, tenant }) {
    const client = librariesClient(api, tenant);
    const { createWorkspace } = await import("../../../shared/services/tenancy/tenants.js");
    const workspaces = [];
    for (const i of range(1, WRITERS)) workspaces.push((await createWorkspace(tenant.caller.organization, `share-${i}`)).id);
    return { client, workspaces, library: await client.created({ name: "shared in parallel" }) };
  },
  write: ({ client, workspaces, library }, i) => client.share(library.id, { level: i % 2 ? "Editor" : "Viewer", share_with_type: "Workspace", share_with_uuid: workspaces[i]! }),
  async check({ client, workspaces, library }, outcomes) {
    expect(fulfilled(outcomes).map((r) => r.status)).toEqual(range(1, WRITERS).map(() => 200));
    const accesses = (await client.accesses(library.id)).body.data as { share_with_uuid: string; role: string }[];
    expect(accesses.filter((a) => a.role !== "Owner").map((a) => a.share_with_uuid).toSorted()).toEqual([...workspaces].toSorted());
    workspaces.forEach((workspace, i) => expect(accesses.find((a) => a.share_with_uuid === workspace)!.role).toBe(i % 2 ? "Editor" : "Viewer"));
    expect((await client.get(library.id)).body.explicit_workspace_members_count).toBe(WRITERS);
  },
});
