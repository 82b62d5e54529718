/**
 * Agents and prompts: the workspace's agents (`agents:read`) and its prompts and skills (`registry:read`), each
 * with its versions side by side and its aliases. `#/registry/<tab>` lists, `#/registry/<tab>/<id>` opens one
 * (`?a=1&b=3` picks the versions compared). Writes (aliases, the current version) need the area's write
 * permission (`agents:write`, `registry:write`) and are absent without it.
 */
import { Page } from "../ui/parts.js";
import type { PageProps } from "./index.js";
import { AgentDetail, AgentList } from "./registry/agents.js";
import { EntryDetail, EntryList } from "./registry/entries.js";
import { registryTabs } from "./registry/tabs.js";

export function Registry({ identity, location }: PageProps) {
  const tabs = registryTabs(identity);
  const [, asked, id] = location.segments;
  const tab = tabs.find((t) => t.id === asked) ?? tabs[0];
  if (!tab)
    return (
      <Page title="Agents and prompts">
        <p>This key may read neither agents nor prompts.</p>
      </Page>
    );
  if (tab.id === "agents") return id ? <AgentDetail key={id} identity={identity} location={location} id={id} /> : <AgentList identity={identity} location={location} />;
  if (id) return <EntryDetail key={`${tab.id}/${id}`} identity={identity} location={location} kind={tab.id} id={id} />;
  return <EntryList identity={identity} kind={tab.id} />;
}
