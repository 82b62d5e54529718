/** The registry's tabs: agents (`agents:read`), prompts and skills (`registry:read`); only those the key may read. */
import { href } from "../../router.js";
import { may, type Identity } from "../../session.js";
import { Tabs } from "../../ui/parts.js";

export type RegistryTab = "agents" | "prompts" | "skills";

export const registryTabs = (identity: Identity): { id: RegistryTab; title: string }[] => [
  ...(may(identity, "agents:read") ? [{ id: "agents" as const, title: "Agents" }] : []),
  ...(may(identity, "registry:read") ? [{ id: "prompts" as const, title: "Prompts" }, { id: "skills" as const, title: "Skills" }] : []),
];

export const RegistryTabs = ({ identity, current }: { identity: Identity; current: RegistryTab }) => (
  <Tabs label="Registry" current={current} tabs={registryTabs(identity).map((tab) => ({ ...tab, href: href("registry", tab.id) }))} />
);
