import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { handler } from "../../../functions/agents/completions.js";
import { OfflineProvider } from "../../../shared/inference/providers/offline.js";
import { countTokens } from "../../../shared/inference/tokenizer.js";
import type { ChatCompletionRequest } from "../../../shared/schemas/inference.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, invokeStream, ssePayloads } from "../../support/builders.js";
import { agentHeadItem, anAgentHead, serveAgentsTable } from "../../support/agents-table.js";

const dynamo = mockDynamo({ resolves: {} });
const caller = aCaller();

const lookupTool = { type: "function" as const, function: { name: "lookup", description: "", strict: false, parameters: { type: "object", properties: {} } } };
const agent = anAgentHead({
  workspace: caller.workspace,
  instructions: "Answer in French.",
  tools: [lookupTool, { type: "web_search" }],
  completion_args: { temperature: 0.2, top_p: 0.8, max_tokens: 50, stop: ["END"], response_format: { type: "json_object" }, tool_choice: "none", random_seed: 4 },
  guardrails: [{ block_on_error: true }],
});
const tiny = anAgentHead({ workspace: caller.workspace, model: "tiny-context" });
const ECHO = "[offline] No language model is configured. You said: «Bonjour»";

let chat: ReturnType<typeof vi.spyOn>;
let chatStream: ReturnType<typeof vi.spyOn>;

beforeEach(() => {
  serveAgentsTable(dynamo, [agentHeadItem(agent), agentHeadItem(tiny)]);
  chat = vi.spyOn(OfflineProvider.prototype, "chat");
  chatStream = vi.spyOn(OfflineProvider.prototype, "chatStream");
});
afterEach(() => {
  vi.restoreAllMocks();
});

const complete = (body: Record<string, unknown>, who = caller) => aJsonEvent({ agent_id: agent.id, messages: [{ role: "user", content: "Bonjour" }], ...body }, { path: "/v1/agents/completions", caller: who });
/** The chat request the provider was handed. */
const sentToProvider = (spy: ReturnType<typeof vi.spyOn>) => spy.mock.calls[0]![0] as ChatCompletionRequest;

describe("POST /v1/agents/completions", () => {
  it("answers the chat completion of the agent's model as JSON", async () => {
    const response = await invokeStream(handler, complete({ response_format: { type: "text" } }));

    expect(response.metadata?.statusCode).toBe(200);
    expect(response.metadata?.headers?.["content-type"]).toBe("application/json");
    expect(response.json).toMatchObject({ object: "chat.completion", model: "mistral-small-latest", choices: [{ message: { content: ECHO }, finish_reason: "stop" }] });
  });

  it("hands the provider the agent's instructions first, then the request's messages", async () => {
    await invokeStream(handler, complete({ messages: [{ role: "system", content: "Context." }, { role: "user", content: "Bonjour" }] }));

    expect(sentToProvider(chat).messages).toEqual([
      { role: "system", content: "Answer in French." },
      { role: "system", content: "Context." },
      { role: "user", content: "Bonjour" },
    ]);
  });

  it("merges the agent's completion_args under the request's values", async () => {
    await invokeStream(handler, complete({ max_tokens: 20, tool_choice: "auto", random_seed: 9 }));

    expect(sentToProvider(chat)).toMatchObject({
      model: "offline-echo",
      temperature: 0.2,
      top_p: 0.8,
      stop: ["END"],
      response_format: { type: "json_object" },
      max_tokens: 20,
      tool_choice: "auto",
      random_seed: 9,
      guardrails: [{ block_on_error: true }],
      parallel_tool_calls: true,
    });
  });

  it("sends the agent's and the request's function tools, not built-in ones", async () => {
    const extra = { type: "function", function: { name: "refund", parameters: { type: "object" } } };

    await invokeStream(handler, complete({ tools: [extra, { type: "code_interpreter" }] }));

    expect(sentToProvider(chat).tools?.map((t) => t.function.name)).toEqual(["lookup", "refund"]);
  });

  it("counts the instructions in the prompt and bills n choices' prompt once", async () => {
    const response = await invokeStream(handler, complete({ n: 3, response_format: { type: "text" } }));

    expect(response.json.choices).toHaveLength(3);
    const promptText = `Answer in French.\nBonjour${JSON.stringify([lookupTool])}`;
    expect(response.json.usage.prompt_tokens).toBe(countTokens("v3", promptText));
  });

  it("writes a usage record under the agents route", async () => {
    await invokeStream(handler, complete({}));

    const usage = dynamo.commandCalls(PutCommand).filter((c) => c.args[0].input.TableName === "platform-usage");
    expect(usage).toHaveLength(1);
    expect(usage[0]!.args[0].input.Item).toMatchObject({ route: "POST /v1/agents/completions", model: "mistral-small-latest", workspace: caller.workspace, status: 200 });
  });

  it("streams SSE ending with data: [DONE] when stream is true", async () => {
    const response = await invokeStream(handler, complete({ stream: true, response_format: { type: "text" } }));

    expect(response.metadata?.statusCode).toBe(200);
    expect(response.metadata?.headers?.["content-type"]).toBe("text/event-stream");
    const payloads = ssePayloads(response.body);
    expect(payloads.at(-1)).toBe("[DONE]");
    const text = payloads
      .slice(0, -1)
      .map((p) => JSON.parse(p))
      .flatMap((c) => c.choices.map((choice: { delta: { content?: string } }) => choice.delta.content ?? ""))
      .join("");
    expect(text).toBe(ECHO);
    expect(sentToProvider(chatStream).messages[0]).toEqual({ role: "system", content: "Answer in French." });
  });

  it("answers 400 when the prompt plus max_tokens exceeds the model's context, without calling the provider", async () => {
    const response = await invokeStream(handler, complete({ agent_id: tiny.id, max_tokens: 40 }));

    expect(response.metadata?.statusCode).toBe(400);
    expect(response.json).toMatchObject({ code: "context_length_exceeded", param: "max_tokens" });
    expect(chat).not.toHaveBeenCalled();
  });

  it("answers 404 for an unknown agent or another workspace's, and 422 for unknown fields", async () => {
    expect((await invokeStream(handler, complete({ agent_id: "3b241101-e2bb-4255-8caf-4136c566a962" }))).metadata?.statusCode).toBe(404);
    expect((await invokeStream(handler, complete({}, aCaller()))).metadata?.statusCode).toBe(404);
    const unknown = await invokeStream(handler, complete({ model: "mistral-large-latest" }));
    expect(unknown.metadata?.statusCode).toBe(422);
    expect(unknown.json.detail[0]).toMatchObject({ loc: ["body", "model"], type: "extra_forbidden" });
    expect(chat).not.toHaveBeenCalled();
  });
});
