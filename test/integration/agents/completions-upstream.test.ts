/**
 * Agent completions against a real (fake) OpenAI-compatible upstream, to see exactly what reaches the
 * model: the agent's instructions first, its completion_args merged under the request's, its function tools.
 *
 * The upstream provider is configured through INFERENCE_PROVIDERS before this file's first model call
 * (the registry reads it once per process; this file has its own module graph) and restored afterwards.
 */
import { randomUUID } from "node:crypto";
import { beforeEach, describe, expect, it } from "vitest";
import { registerFineTuned } from "../../../shared/services/models/catalog.js";
import { PROVIDERS_ENV } from "../../../shared/inference/registry.js";
import { useEmbeddedApi } from "../../support/api.js";
import { agentsClient, anAgentRequest } from "../../support/agents-client.js";
import { json, sse, useFakeUpstream } from "../../support/fake-upstream.js";

const fake = useFakeUpstream();
const { api, tenant } = useEmbeddedApi();
const client = agentsClient(api, tenant);
let model: string;

beforeEach(async () => {
  model = `ft:mistral-small-latest:agents:${randomUUID().slice(0, 8)}`;
  await registerFineTuned({ workspace: tenant.caller.workspace, id: model, root: "mistral-small-latest", provider: "upstream", upstream: "fake-model" });
});

async function upstreamBody(): Promise<Record<string, any>> {
  return (await fake.requestOfTest()).body as Record<string, any>;
}

const answer = json({ id: "up", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: "Bonjour" }, finish_reason: "stop" }], usage: { prompt_tokens: 9, completion_tokens: 1, total_tokens: 10 } });

const lookupTool = { type: "function", function: { name: "lookup_order", description: "Finds an order", strict: false, parameters: { type: "object", properties: {} } } };

describe("what an agent completion sends the model", () => {
  it("the agent's instructions as the first message, before the request's own messages", async () => {
    const agent = (await client.create(anAgentRequest({ model, instructions: "Answer in French." }))).body;
    fake.reply(answer);

    const reply = await client.complete({
      agent_id: agent.id,
      messages: [
        { role: "system", content: "The customer is called Ada." },
        { role: "user", content: "Hello" },
      ],
    });

    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ model, choices: [{ message: { content: "Bonjour" } }], usage: { prompt_tokens: 9, completion_tokens: 1 } });
    const body = await upstreamBody();
    expect(body.model).toBe("fake-model");
    expect(body.messages).toEqual([
      { role: "system", content: "Answer in French." },
      { role: "system", content: "The customer is called Ada." },
      { role: "user", content: "Hello" },
    ]);
  });

  it("no extra message when the agent has no instructions", async () => {
    const agent = (await client.create(anAgentRequest({ model }))).body;
    fake.reply(answer);

    await client.complete({ agent_id: agent.id, messages: [{ role: "user", content: "Hello" }] });

    expect((await upstreamBody()).messages).toEqual([{ role: "user", content: "Hello" }]);
  });

  it("the agent's completion_args under the request's: a value the request sets wins, the others are the agent's", async () => {
    const agent = (
      await client.create(
        anAgentRequest({
          model,
          completion_args: { temperature: 0.2, top_p: 0.7, max_tokens: 64, random_seed: 3, stop: ["END"], presence_penalty: 0.4, frequency_penalty: 0.3, tool_choice: "none" },
        }),
      )
    ).body;
    fake.reply(answer);

    await client.complete({ agent_id: agent.id, messages: [{ role: "user", content: "Hello" }], max_tokens: 10, stop: "STOP", frequency_penalty: -1 });

    const body = await upstreamBody();
    expect(body).toMatchObject({
      temperature: 0.2,
      top_p: 0.7,
      random_seed: 3,
      presence_penalty: 0.4,
      max_tokens: 10,
      stop: "STOP",
      frequency_penalty: -1,
      stream: false,
    });
  });

  it("the agent's function tools and the request's, without built-in tools, and n", async () => {
    const agent = (await client.create(anAgentRequest({ model, tools: [lookupTool, { type: "web_search" }], completion_args: { tool_choice: "auto" } }))).body;
    const extra = { type: "function", function: { name: "refund", description: "", strict: false, parameters: { type: "object", properties: {} } } };
    fake.reply(json({ id: "up", object: "chat.completion", choices: [0, 1].map((index) => ({ index, message: { role: "assistant", content: "x" }, finish_reason: "stop" })) }));

    const reply = await client.complete({ agent_id: agent.id, messages: [{ role: "user", content: "Hello" }], tools: [extra, { type: "image_generation" }], n: 2 });

    expect(reply.status).toBe(200);
    const body = await upstreamBody();
    expect(body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(["lookup_order", "refund"]);
    expect(body).toMatchObject({ tool_choice: "auto", n: 2 });
  });

  it("streams through the upstream and ends with data: [DONE]", async () => {
    const agent = (await client.create(anAgentRequest({ model, instructions: "Be brief." }))).body;
    const chunk = (content: string, finish: string | null = null) => ({ id: "up", object: "chat.completion.chunk", created: 1, model: "fake-model", choices: [{ index: 0, delta: { content }, finish_reason: finish }] });
    fake.reply(sse([chunk("Bon"), chunk("jour", "stop")]));

    const streamed = await client.streamed({ agent_id: agent.id, messages: [{ role: "user", content: "Hello" }] });

    expect(streamed.text).toBe("Bonjour");
    expect(streamed.frames.at(-1)!.data).toBe("[DONE]");
    const body = await upstreamBody();
    expect(body).toMatchObject({ stream: true, messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hello" }] });
  });
});
