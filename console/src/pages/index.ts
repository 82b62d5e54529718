/**
 * Every page of the console: its place in the navigation and what it needs. A page is listed, and reachable,
 * only when the signed-in key holds one of the permissions it names (GET /v1/users/me); inside a page, each
 * action checks its own permission and is absent without it.
 */
import type { FunctionComponent } from "preact";
import type { Location } from "../router.js";
import type { Identity } from "../session.js";
import { AuditLog } from "./audit.js";
import { BatchJobs } from "./batch.js";
import { Files } from "./files.js";
import { Keys } from "./keys.js";
import { Observability } from "./observability.js";
import { Overview } from "./overview.js";
import { Playground } from "./playground.js";
import { Registry } from "./registry.js";
import { Workflows } from "./workflows.js";
import { Workspaces } from "./workspaces.js";

export interface PageProps {
  identity: Identity;
  location: Location;
}

export interface PageEntry {
  id: string;
  title: string;
  /** Any one of these lets the key see the page. */
  needs: string[];
  component: FunctionComponent<PageProps>;
}

export const PAGES: PageEntry[] = [
  { id: "overview", title: "Overview", needs: ["usage:read", "observability:read"], component: Overview },
  { id: "playground", title: "Playground", needs: ["inference:invoke"], component: Playground },
  { id: "files", title: "Files", needs: ["files:read"], component: Files },
  { id: "batch", title: "Batch jobs", needs: ["batch:read"], component: BatchJobs },
  { id: "registry", title: "Agents and prompts", needs: ["agents:read", "registry:read"], component: Registry },
  { id: "workflows", title: "Workflows", needs: ["workflows:read"], component: Workflows },
  { id: "observability", title: "Observability", needs: ["observability:read"], component: Observability },
  { id: "keys", title: "Keys", needs: ["service-accounts:manage", "workspaces:admin"], component: Keys },
  { id: "workspaces", title: "Workspaces", needs: ["workspaces:admin"], component: Workspaces },
  { id: "audit", title: "Audit log", needs: ["workspaces:admin"], component: AuditLog },
];

export const pagesFor = (identity: Identity): PageEntry[] => PAGES.filter((page) => page.needs.some((p) => identity.permissions.includes(p)));
