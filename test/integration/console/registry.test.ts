/**
 * The console's "Agents and prompts" page in headless Chromium against the embedded API: an agent's and a
 * prompt's versions listed and compared side by side (changed fields marked, the texts as written), an alias
 * moved and created through the page and checked through the API, and a read-only key (roles ["user"]) that
 * sees the same versions and aliases without any button to change them.
 */
import type { Browser, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { agentsClient, anAgentRequest } from "../../support/agents-client.js";
import { useEmbeddedApi } from "../../support/api.js";
import { useChromium } from "../../support/chromium.js";
import { openConsole } from "../../support/console.js";
import { aPromptBody, aSkillBody, registryClient } from "../../support/registry-client.js";
import { newTenant } from "../../support/tenant.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
const agents = () => agentsClient(api, tenant);
const prompts = () => registryClient(api, tenant);

const chromium = useChromium();

const unique = (name: string) => `${name}-${Math.random().toString(36).slice(2, 8)}`;

/** An agent with three versions: v2 changes the second line of the instructions, v3 the first and the temperature. */
async function anAgentWithThreeVersions() {
  const name = unique("support-bot");
  const created = await agents().create(anAgentRequest({ name, instructions: "Answer in English.\nBe brief.", completion_args: { temperature: 0.2 } }));
  expect(created.status).toBe(200);
  const id = created.body.id as string;
  expect((await agents().update(id, { instructions: "Answer in English.\nBe thorough.", version_message: "more detail" })).status).toBe(200);
  expect((await agents().update(id, { instructions: "Answer in French.\nBe thorough.", completion_args: { temperature: 0.7 }, version_message: "in French" })).status).toBe(200);
  expect((await agents().putAlias(id, "prod", 1)).status).toBe(200);
  return { id, name };
}

/** A prompt shared with the workspace (so a narrower key of it can read it), with three versions. */
async function aPromptWithThreeVersions() {
  const name = unique("greeting");
  const prompt = await prompts().created(aPromptBody({ name, definition: { content: "Hello {{name}}." }, sharingScope: "workspace", aliases: ["prod"] }));
  await prompts().versionCreated(prompt.id, { definition: { content: "Hello {{name}},\nwelcome to {{place}}." }, notes: "adds the place" });
  await prompts().versionCreated(prompt.id, { definition: { content: "Bonjour {{name}},\nwelcome to {{place}}." }, notes: "adds the place" });
  return { id: prompt.id as string, name };
}

const row = (page: Page, field: string) => page.locator(`table.compare tr[data-field="${field}"]`);
const side = (page: Page, field: string, which: "a" | "b") => row(page, field).locator(`td[data-side="${which}"]`);

describe("Agents", () => {
  it("lists an agent's versions, compares v1 and v3 side by side, and moves and creates aliases through the page", async () => {
    const agent = await anAgentWithThreeVersions();
    const c = await openConsole(chromium.browser, api.url, tenant.key);
    await c.open("#/registry/agents", "Agents and prompts");
    expect(await c.page.getByRole("navigation", { name: "Registry" }).getByRole("link").allTextContents()).toEqual(["Agents", "Prompts", "Skills"]);
    await c.page.getByLabel("Search agents").fill(agent.name.slice(-6));
    await c.page.getByRole("button", { name: "Search" }).click();
    const found = c.page.getByRole("table", { name: `Agents matching “${agent.name.slice(-6)}”` });
    await found.waitFor();
    expect(await found.locator("tbody tr").count()).toBe(1);
    expect(await c.accessibility()).toEqual([]);
    await found.getByRole("link", { name: agent.name }).click();
    await c.page.getByRole("heading", { level: 1, name: agent.name }).waitFor();

    // The versions, newest first, the current one marked, the alias beside its version.
    const versions = c.page.getByRole("table", { name: "The agent's versions, newest first" });
    await versions.waitFor();
    const rows = versions.locator("tbody tr");
    expect(await rows.count()).toBe(3);
    expect(await rows.nth(0).textContent()).toContain("3 current");
    expect(await rows.nth(0).textContent()).toContain("in French");
    expect(await rows.nth(2).textContent()).toContain("prod");

    // By default the latest version against the one before it; then version 1 as A.
    await c.page.getByRole("table", { name: "Version 2 and version 3 side by side" }).waitFor();
    await c.page.getByLabel("Version A", { exact: true }).selectOption("1");
    await c.page.getByRole("table", { name: "Version 1 and version 3 side by side" }).waitFor();
    expect(await c.page.evaluate(() => location.hash)).toBe(`#/registry/agents/${agent.id}?a=1&b=3`);

    expect(await row(c.page, "Instructions").getAttribute("data-changed")).toBe("true");
    expect(await row(c.page, "Instructions").getByRole("rowheader").textContent()).toBe("Instructions changed");
    expect(await side(c.page, "Instructions", "a").textContent()).toBe("Answer in English.\nBe brief.");
    expect(await side(c.page, "Instructions", "b").textContent()).toBe("Answer in French.\nBe thorough.");
    expect(await side(c.page, "Instructions", "a").locator("del").allTextContents()).toEqual(["Answer in English.\n", "Be brief."]);
    expect(await side(c.page, "Instructions", "b").locator("ins").allTextContents()).toEqual(["Answer in French.\n", "Be thorough."]);
    expect(await row(c.page, "Completion arguments").getAttribute("data-changed")).toBe("true");
    expect(await side(c.page, "Completion arguments", "a").textContent()).toContain('"temperature": 0.2');
    expect(await side(c.page, "Completion arguments", "b").textContent()).toContain('"temperature": 0.7');
    expect(await row(c.page, "Version message").getAttribute("data-changed")).toBe("true");
    expect(await side(c.page, "Version message", "a").textContent()).toBe("not set");
    expect(await side(c.page, "Version message", "b").textContent()).toBe("in French");
    for (const same of ["Name", "Model", "Tools"]) expect(await row(c.page, same).getAttribute("data-changed"), same).toBe("false");
    expect(await side(c.page, "Model", "a").textContent()).toBe("mistral-small-latest");
    expect(await c.page.getByTestId("compare-summary").textContent()).toBe("3 fields differ.");
    expect(await c.accessibility()).toEqual([]);

    // Point the alias `prod` (on version 1) at version 2.
    await c.page.getByLabel("Version for alias prod").selectOption("2");
    await c.page.getByRole("button", { name: "Move alias prod" }).click();
    await c.page.getByRole("status").filter({ hasText: "Alias prod now points at version 2." }).waitFor();
    expect((await agents().listAliases(agent.id)).body).toMatchObject([{ alias: "prod", version: 2 }]);
    expect((await agents().get(agent.id, { agent_version: "prod" })).body).toMatchObject({ version: 2, instructions: "Answer in English.\nBe thorough." });
    await expect.poll(() => rows.nth(1).textContent()).toContain("prod");

    // A new alias on version 3.
    await c.page.getByLabel("New alias").fill("canary");
    await c.page.getByLabel("At version").selectOption("3");
    await c.page.getByRole("button", { name: "Create alias" }).click();
    await c.page.getByRole("status").filter({ hasText: "Alias canary now points at version 3." }).waitFor();
    const aliases = (await agents().listAliases(agent.id)).body as { alias: string; version: number }[];
    expect(aliases.map(({ alias, version }) => ({ alias, version })).sort((x, y) => x.alias.localeCompare(y.alias))).toEqual([
      { alias: "canary", version: 3 },
      { alias: "prod", version: 2 },
    ]);
    await c.page.getByRole("table", { name: "Aliases and the version each points at" }).getByRole("cell", { name: "canary", exact: true }).waitFor();
    expect(await c.accessibility()).toEqual([]);

    // Version 2 made current again (PATCH .../version).
    await c.page.getByRole("button", { name: "Make version 2 current" }).click();
    // The row's own button reads "Make version 2 current" until the change is answered: wait for it to go.
    await expect.poll(() => c.page.getByRole("button", { name: "Make version 2 current" }).count()).toBe(0);
    await expect.poll(() => rows.nth(1).textContent()).toContain("current");
    expect((await agents().get(agent.id)).body).toMatchObject({ version: 2, versions: [1, 2, 3], instructions: "Answer in English.\nBe thorough." });
    await c.page.getByRole("button", { name: "Make version 3 current" }).waitFor();
    expect(c.problems).toEqual([]);
    await c.page.context().close();
  });
});

describe("Prompts", () => {
  it("lists a prompt's versions, compares v1 and v3 side by side, and moves its alias through the page", async () => {
    const prompt = await aPromptWithThreeVersions();
    const c = await openConsole(chromium.browser, api.url, tenant.key);
    await c.open("#/registry/prompts", "Agents and prompts");
    await c.page.getByRole("link", { name: prompt.name }).click();
    await c.page.getByRole("heading", { level: 1, name: prompt.name }).waitFor();

    const rows = c.page.getByRole("table", { name: "The prompt's versions, newest first" }).locator("tbody tr");
    await rows.first().waitFor();
    expect(await rows.count()).toBe(3);
    expect((await rows.allTextContents()).map((text) => text.slice(0, 1))).toEqual(["3", "2", "1"]);
    expect(await rows.nth(2).textContent()).toContain("prod");

    await c.page.getByRole("table", { name: "Version 2 and version 3 side by side" }).waitFor();
    // Versions 2 and 3 differ in their first line only; their notes are the same.
    expect(await side(c.page, "Content", "a").locator("del").allTextContents()).toEqual(["Hello {{name}},\n"]);
    expect(await row(c.page, "Notes").getAttribute("data-changed")).toBe("false");
    await c.page.getByLabel("Version A", { exact: true }).selectOption("1");
    await c.page.getByRole("table", { name: "Version 1 and version 3 side by side" }).waitFor();
    expect(await side(c.page, "Content", "a").textContent()).toBe("Hello {{name}}.");
    expect(await side(c.page, "Content", "b").textContent()).toBe("Bonjour {{name}},\nwelcome to {{place}}.");
    expect(await row(c.page, "Content").getAttribute("data-changed")).toBe("true");
    expect(await side(c.page, "Variables", "a").textContent()).toBe("name");
    expect(await side(c.page, "Variables", "b").textContent()).toBe("name, place");
    expect(await side(c.page, "Notes", "a").textContent()).toBe("not set");
    expect(await side(c.page, "Notes", "b").textContent()).toBe("adds the place");
    expect(await c.accessibility()).toEqual([]);

    await c.page.getByLabel("Version for alias prod").selectOption("2");
    await c.page.getByRole("button", { name: "Move alias prod" }).click();
    await c.page.getByRole("status").filter({ hasText: "Alias prod now points at version 2." }).waitFor();
    expect((await prompts().get(prompt.id, { alias: "prod" })).body).toMatchObject({ version: 2, definition: { content: "Hello {{name}},\nwelcome to {{place}}." } });
    expect((await prompts().getVersion(prompt.id, 1)).body.aliases).toEqual([]);
    await expect.poll(() => rows.nth(1).textContent()).toContain("prod");
    expect(await c.accessibility()).toEqual([]);
    expect(c.problems).toEqual([]);
    await c.page.context().close();
  });
});

describe("Skills", () => {
  it("lists a skill's versions and shows the changed body side by side", async () => {
    const skills = registryClient(api, tenant, "skills");
    const skill = await skills.created(aSkillBody());
    await skills.versionCreated(skill.id, { definition: { ...skill.definition, body: "# Release notes\nUse the new template." }, notes: "new template" });
    const c = await openConsole(chromium.browser, api.url, tenant.key);
    await c.open("#/registry/skills", "Agents and prompts");
    await c.page.getByRole("link", { name: skill.name }).click();
    await c.page.getByRole("heading", { level: 1, name: skill.name }).waitFor();
    await c.page.getByRole("table", { name: "Version 1 and version 2 side by side" }).waitFor();
    expect(await row(c.page, "Body").getAttribute("data-changed")).toBe("true");
    expect(await side(c.page, "Body", "a").locator("del").allTextContents()).toEqual(["Use the template."]);
    expect(await side(c.page, "Body", "b").locator("ins").allTextContents()).toEqual(["Use the new template."]);
    for (const same of ["Description", "Assets"]) expect(await row(c.page, same).getAttribute("data-changed"), same).toBe("false");
    expect(await side(c.page, "Assets", "b").textContent()).toContain('"textContent": "## {{version}}"');
    expect(await c.accessibility()).toEqual([]);
    expect(c.problems).toEqual([]);
    await c.page.context().close();
  });
});

describe("a read-only key", () => {
  it("sees an agent's and a prompt's versions and aliases, with no button to change them", async () => {
    const agent = await anAgentWithThreeVersions();
    const prompt = await aPromptWithThreeVersions();
    const reader = await newTenant({ roles: ["user"], organization: tenant.caller.organization, workspace: tenant.caller.workspace });
    const c = await openConsole(chromium.browser, api.url, reader.key);
    expect(await c.page.getByRole("navigation", { name: "Console" }).getByRole("link").allTextContents()).toContain("Agents and prompts");

    await c.open(`#/registry/agents/${agent.id}?a=1&b=3`, agent.name);
    await c.page.getByRole("table", { name: "Version 1 and version 3 side by side" }).waitFor();
    expect(await row(c.page, "Instructions").getAttribute("data-changed")).toBe("true");
    const aliases = c.page.getByRole("table", { name: "Aliases and the version each points at" });
    await aliases.getByRole("cell", { name: "prod", exact: true }).waitFor();
    expect(await c.page.getByRole("button", { name: "Move alias prod" }).count()).toBe(0);
    expect(await c.page.getByRole("button", { name: "Create alias" }).count()).toBe(0);
    expect(await c.page.getByLabel("New alias").count()).toBe(0);
    expect(await c.page.getByRole("button", { name: /Make version \d+ current/ }).count()).toBe(0);
    expect(await c.page.getByRole("main").getByRole("button").count()).toBe(0);
    expect(await c.accessibility()).toEqual([]);

    await c.open("#/registry/prompts", "Agents and prompts");
    await c.page.getByRole("link", { name: prompt.name }).click();
    await c.page.getByRole("heading", { level: 1, name: prompt.name }).waitFor();
    await c.page.getByRole("table", { name: "Version 2 and version 3 side by side" }).waitFor();
    await c.page.getByRole("table", { name: "Aliases and the version each points at" }).getByRole("cell", { name: "prod", exact: true }).waitFor();
    expect(await c.page.getByRole("main").getByRole("button").count()).toBe(0);
    expect(await c.accessibility()).toEqual([]);
    expect(c.problems).toEqual([]);
    await c.page.context().close();
  });
});
