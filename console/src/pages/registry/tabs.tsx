/** The registry's tabs: agents (`agents:read`), prompts and skills (`registry:read`); only those the key may read. */
import { href } from "../../router.js";
import { may, type Identity } from "../../session.js";

export type RegistryTab = "agents" | "prompts" | "skills";

export const registryTabs = (identity: Identity): { id: RegistryTab; title: string }[] => [
  ...(may(identity, "agents:read") ? [{ id: "agents" as const, title: "Agents" }] : []),
  ...(may(identity, "registry:read") ? [{ id: "prompts" as const, title: "Prompts" }, { id: "skills" as const, title: "Skills" }] : []),
];

export function RegistryTabs({ identity, current }: { identity: Identity; current: RegistryTab }) {
  return (
    <nav class="tabs" aria-label="Registry">
      {registryTabs(identity).map((tab) => (
        <a href={href("registry", tab.id)} aria-current={tab.id === current ? "page" : undefined}>
          {tab.title}
        </a>
      ))}
    </nav>
  );
}
