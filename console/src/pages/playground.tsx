/**
 * Playground: a conversation with a catalog model (POST /v1/chat/completions) or an agent (POST
 * /v1/agents/completions), or a fill-in-the-middle completion (POST /v1/fim/completions), streamed as it
 * arrives; then the call's usage (the last chunk's), its Server-Timing, and the backend and deployment that
 * answered (the x-inference-backend / x-inference-deployment headers: docs/routing.md).
 */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, streamEvents } from "../api.js";
import { href } from "../router.js";
import { may } from "../session.js";
import { count } from "../ui/format.js";
import { Button, ErrorNote, Field, Loading, Page, Panel, Tabs } from "../ui/parts.js";
import { useResource } from "../ui/use-resource.js";
import type { PageProps } from "./index.js";
import { mergeToolCalls, optionalNumber, parseTools, textOf, type AgentSummary, type Chunk, type ModelCard, type ToolCallOut, type Turn, type Usage } from "./playground/request.js";

type Mode = "chat" | "fim";

/** What the last call answered besides its text. */
interface CallFacts {
  model?: string;
  usage?: Usage;
  finish?: string | null;
  backend?: string | null;
  deployment?: string | null;
  timing?: string | null;
  cache?: string | null;
}

export function Playground({ identity, location }: PageProps) {
  const mode: Mode = location.segments[1] === "fim" ? "fim" : "chat";
  const canListModels = may(identity, "models:read");
  const canUseAgents = may(identity, "agents:read");
  const models = useResource(
    (signal) => (canListModels ? api.get<{ data: ModelCard[] }>("/v1/models", undefined, signal).then((r) => r.data) : Promise.resolve([] as ModelCard[])),
    [canListModels],
  );
  const agents = useResource(
    (signal) => (canUseAgents ? api.get<AgentSummary[]>("/v1/agents", { page_size: 200 }, signal) : Promise.resolve([] as AgentSummary[])),
    [canUseAgents],
  );
  return (
    <Page title="Playground">
      <Tabs label="Playground mode" current={mode} tabs={[{ id: "chat", title: "Chat", href: href("playground") }, { id: "fim", title: "Fill in the middle", href: href("playground", "fim") }]} />
      <ErrorNote error={models.error ?? agents.error} />
      {models.loading && !models.data ? (
        <Loading />
      ) : mode === "chat" ? (
        <Chat models={(models.data ?? []).filter((m) => m.capabilities.completion_chat && !m.archived)} canListModels={canListModels} agents={canUseAgents ? (agents.data ?? []) : null} />
      ) : (
        <Fim models={(models.data ?? []).filter((m) => m.capabilities.completion_fim && !m.archived)} canListModels={canListModels} />
      )}
    </Page>
  );
}

/** The model to call: a select of the catalog's fitting models, or (a key that may not list them) a text field. */
function ModelChoice({ id, models, canList, value, onChange }: { id: string; models: ModelCard[]; canList: boolean; value: string; onChange: (v: string) => void }) {
  if (!canList)
    return (
      <Field label="Model" id={id} hint="This key may not list the catalog: type a model id.">
        <input id={id} value={value} onInput={(e) => onChange(e.currentTarget.value)} required />
      </Field>
    );
  if (models.length === 0) return <p class="muted">The catalog has no model for this.</p>;
  return (
    <Field label="Model" id={id}>
      <select id={id} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        {models.map((m) => (
          <option value={m.id}>{m.name && m.name !== m.id ? `${m.id} — ${m.name}` : m.id}</option>
        ))}
      </select>
    </Field>
  );
}

/** Runs one streamed call, keeping the text and tool calls as they arrive and the facts at the end. */
function useStreamedCall() {
  const [text, setText] = useState("");
  const [toolCalls, setToolCalls] = useState<ToolCallOut[]>([]);
  const [facts, setFacts] = useState<CallFacts | null>(null);
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<unknown>();
  const controller = useRef<AbortController | null>(null);
  useEffect(() => () => controller.current?.abort(), []);

  async function run(path: string, body: Record<string, unknown>): Promise<{ text: string; toolCalls: ToolCallOut[] } | null> {
    controller.current?.abort();
    const abort = new AbortController();
    controller.current = abort;
    let soFar = "";
    let calls: ToolCallOut[] = [];
    const seen: CallFacts = {};
    setText("");
    setToolCalls([]);
    setFacts(null);
    setError(undefined);
    setRunning(true);
    try {
      const headers = await streamEvents(
        path,
        { ...body, stream: true },
        (data) => {
          const chunk = data as Chunk;
          if (chunk.model) seen.model = chunk.model;
          if (chunk.usage) seen.usage = chunk.usage;
          const choice = chunk.choices?.[0];
          if (!choice) return;
          if (choice.finish_reason) seen.finish = choice.finish_reason;
          const piece = textOf(choice.delta?.content);
          if (piece) {
            soFar += piece;
            setText(soFar);
          }
          if (choice.delta?.tool_calls?.length) {
            calls = mergeToolCalls(calls, choice.delta.tool_calls);
            setToolCalls(calls);
          }
        },
        abort.signal,
      );
      setFacts({
        ...seen,
        backend: headers.get("x-inference-backend"),
        deployment: headers.get("x-inference-deployment"),
        timing: headers.get("server-timing"),
        cache: headers.get("x-response-cache"),
      });
      return { text: soFar, toolCalls: calls };
    } catch (failure) {
      if (abort.signal.aborted) {
        setFacts({ ...seen, finish: "stopped" });
        return soFar || calls.length ? { text: soFar, toolCalls: calls } : null;
      }
      setError(failure);
      return null;
    } finally {
      if (controller.current === abort) controller.current = null;
      setRunning(false);
    }
  }
  const stop = () => controller.current?.abort();
  const reset = () => {
    stop();
    setText("");
    setToolCalls([]);
    setFacts(null);
    setError(undefined);
  };
  return { text, toolCalls, facts, running, error, run, stop, reset };
}

/** Temperature and max tokens: empty means the model's (or the agent's) own. */
function useSampling() {
  const [temperature, setTemperature] = useState("");
  const [maxTokens, setMaxTokens] = useState("");
  const read = (withTemperature: boolean): { fields?: Record<string, number>; problem?: string } => {
    const t = withTemperature ? optionalNumber(temperature, "Temperature", (n) => n >= 0 && n <= 1.5, "a number from 0 to 1.5") : {};
    const m = optionalNumber(maxTokens, "Max tokens", (n) => Number.isInteger(n) && n >= 1, "a whole number of at least 1");
    if (t.problem || m.problem) return { problem: t.problem ?? m.problem };
    return { fields: { ...(t.value !== undefined ? { temperature: t.value } : {}), ...(m.value !== undefined ? { max_tokens: m.value } : {}) } };
  };
  const fields = (withTemperature: boolean) => (
    <div class="row">
      {withTemperature && (
        <Field label="Temperature" id="pg-temperature" hint="0 to 1.5; empty: the model's default">
          <input id="pg-temperature" type="number" min={0} max={1.5} step={0.1} inputMode="decimal" value={temperature} onInput={(e) => setTemperature(e.currentTarget.value)} />
        </Field>
      )}
      <Field label="Max tokens" id="pg-max-tokens" hint="Empty: no limit of your own">
        <input id="pg-max-tokens" type="number" min={1} step={1} inputMode="numeric" value={maxTokens} onInput={(e) => setMaxTokens(e.currentTarget.value)} />
      </Field>
    </div>
  );
  return { read, fields };
}

function Chat({ models, canListModels, agents }: { models: ModelCard[]; canListModels: boolean; agents: AgentSummary[] | null }) {
  const [target, setTarget] = useState<"model" | "agent">("model");
  const [model, setModel] = useState("");
  const [agent, setAgent] = useState("");
  const [system, setSystem] = useState("");
  const [turns, setTurns] = useState<(Turn & { toolCalls?: ToolCallOut[] })[]>([]);
  const [role, setRole] = useState<"user" | "assistant">("user");
  const [message, setMessage] = useState("");
  const [jsonMode, setJsonMode] = useState(false);
  const [toolsText, setToolsText] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const sampling = useSampling();
  const call = useStreamedCall();

  const chosenModel = model || models[0]?.id || "";
  const chosenAgent = agent || agents?.[0]?.id || "";
  const useAgent = target === "agent" && agents !== null;

  const addTurn = () => {
    if (!message.trim()) return turns;
    const next = [...turns, { role, content: message }];
    setTurns(next);
    setMessage("");
    setRole("user");
    return next;
  };

  async function send() {
    setProblem(null);
    const tools = parseTools(toolsText);
    const numbers = sampling.read(!useAgent);
    const problemNow = tools.problem ?? numbers.problem ?? (useAgent ? (chosenAgent ? null : "Choose an agent.") : chosenModel ? null : "Choose a model.");
    if (problemNow) return setProblem(problemNow);
    const conversation = message.trim() ? [...turns, { role, content: message }] : turns;
    if (!conversation.some((t) => t.role === "user")) return setProblem("Write a message first.");
    const sent = addTurn();
    const messages = [
      ...(system.trim() ? [{ role: "system", content: system }] : []),
      ...sent.filter((t) => t.content || t.toolCalls?.length).map((t) => ({ role: t.role, content: t.content })),
    ];
    const body: Record<string, unknown> = {
      ...(useAgent ? { agent_id: chosenAgent } : { model: chosenModel }),
      messages,
      ...numbers.fields,
      ...(tools.tools ? { tools: tools.tools } : {}),
      ...(jsonMode ? { response_format: { type: "json_object" } } : {}),
    };
    const answer = await call.run(useAgent ? "/v1/agents/completions" : "/v1/chat/completions", body);
    if (answer) setTurns([...sent, { role: "assistant", content: answer.text, toolCalls: answer.toolCalls.length ? answer.toolCalls : undefined }]);
  }

  const clear = () => {
    call.reset();
    setTurns([]);
    setMessage("");
    setProblem(null);
  };

  return (
    <>
      <Panel title="Settings">
        {agents !== null && (
          <fieldset class="pg-choice">
            <legend>Answer with</legend>
            <label>
              <input type="radio" name="pg-target" checked={target === "model"} onChange={() => setTarget("model")} /> A model
            </label>
            <label>
              <input type="radio" name="pg-target" checked={target === "agent"} onChange={() => setTarget("agent")} /> An agent
            </label>
          </fieldset>
        )}
        {useAgent ? (
          agents.length === 0 ? (
            <p class="muted">This workspace has no agent yet.</p>
          ) : (
            <Field label="Agent" id="pg-agent">
              <select id="pg-agent" value={chosenAgent} onChange={(e) => setAgent(e.currentTarget.value)}>
                {agents.map((a) => (
                  <option value={a.id}>{`${a.name} (${a.model})`}</option>
                ))}
              </select>
            </Field>
          )
        ) : (
          <ModelChoice id="pg-model" models={models} canList={canListModels} value={chosenModel} onChange={setModel} />
        )}
        {sampling.fields(!useAgent)}
        {useAgent && <p class="muted">An agent answers with its own temperature (its completion arguments).</p>}
        <label class="pg-check">
          <input type="checkbox" checked={jsonMode} onChange={(e) => setJsonMode(e.currentTarget.checked)} /> JSON mode (the answer is one JSON object)
        </label>
        <Field label="Tools (JSON array, optional)" id="pg-tools" hint='e.g. [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {}}}}]'>
          <textarea id="pg-tools" class="mono" value={toolsText} onInput={(e) => setToolsText(e.currentTarget.value)} spellcheck={false} />
        </Field>
      </Panel>
      <Panel title="Conversation">
        <Field label="System prompt (optional)" id="pg-system">
          <textarea id="pg-system" value={system} onInput={(e) => setSystem(e.currentTarget.value)} />
        </Field>
        {turns.length > 0 || call.running ? (
          <ol class="pg-turns" aria-label="Turns">
            {turns.map((t) => (
              <li class={`pg-turn ${t.role}`}>
                <span class="badge">{t.role}</span>
                {(t.content || !t.toolCalls) && <div class="pg-text">{t.content || <span class="muted">(empty)</span>}</div>}
                {t.toolCalls && <ToolCalls calls={t.toolCalls} />}
              </li>
            ))}
            {call.running && (
              <li class="pg-turn assistant">
                <span class="badge">assistant</span>
                <div class="pg-text" aria-live="polite" data-testid="streaming">
                  {call.text || <span class="muted">Waiting for the first token…</span>}
                </div>
                {call.toolCalls.length > 0 && <ToolCalls calls={call.toolCalls} />}
              </li>
            )}
          </ol>
        ) : (
          <p class="muted">No turns yet.</p>
        )}
        <div class="row">
          <Field label="Role" id="pg-role">
            <select id="pg-role" value={role} onChange={(e) => setRole(e.currentTarget.value as "user" | "assistant")}>
              <option value="user">user</option>
              <option value="assistant">assistant</option>
            </select>
          </Field>
        </div>
        <Field label="Message" id="pg-message">
          <textarea id="pg-message" value={message} onInput={(e) => setMessage(e.currentTarget.value)} />
        </Field>
        <ErrorNote error={problem} />
        <ErrorNote error={call.error} />
        <div class="row">
          <Button kind="primary" onClick={send} disabled={call.running}>
            Send
          </Button>
          <Button onClick={addTurn} disabled={call.running || !message.trim()}>
            Add turn
          </Button>
          {call.running && <Button onClick={call.stop}>Stop</Button>}
          <Button onClick={clear}>Clear</Button>
        </div>
      </Panel>
      {call.facts && <Facts facts={call.facts} />}
    </>
  );
}

function ToolCalls({ calls }: { calls: ToolCallOut[] }) {
  return (
    <div>
      <span class="muted">Tool calls</span>
      <pre>{JSON.stringify(calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })), null, 2)}</pre>
    </div>
  );
}

function Fim({ models, canListModels }: { models: ModelCard[]; canListModels: boolean }) {
  const [model, setModel] = useState("");
  const [prompt, setPrompt] = useState("");
  const [suffix, setSuffix] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const sampling = useSampling();
  const call = useStreamedCall();
  const chosen = model || models[0]?.id || "";

  async function complete() {
    setProblem(null);
    const numbers = sampling.read(true);
    const problemNow = numbers.problem ?? (chosen ? null : "Choose a model.") ?? (prompt ? null : "Write a prompt first.");
    if (problemNow) return setProblem(problemNow);
    await call.run("/v1/fim/completions", { model: chosen, prompt, ...(suffix ? { suffix } : {}), ...numbers.fields });
  }

  return (
    <>
      <Panel title="Settings">
        <ModelChoice id="pg-fim-model" models={models} canList={canListModels} value={chosen} onChange={setModel} />
        {sampling.fields(true)}
      </Panel>
      <Panel title="Code">
        <Field label="Prompt (the code before the gap)" id="pg-prompt">
          <textarea id="pg-prompt" class="mono" value={prompt} onInput={(e) => setPrompt(e.currentTarget.value)} spellcheck={false} />
        </Field>
        <Field label="Suffix (the code after the gap, optional)" id="pg-suffix">
          <textarea id="pg-suffix" class="mono" value={suffix} onInput={(e) => setSuffix(e.currentTarget.value)} spellcheck={false} />
        </Field>
        <ErrorNote error={problem} />
        <ErrorNote error={call.error} />
        <div class="row">
          <Button kind="primary" onClick={complete} disabled={call.running}>
            Complete
          </Button>
          {call.running && <Button onClick={call.stop}>Stop</Button>}
          <Button onClick={() => { call.reset(); setProblem(null); }}>Clear</Button>
        </div>
        {(call.running || call.text || call.facts) && (
          <section class="pg-fill" aria-labelledby="pg-fill-title">
            <h3 id="pg-fill-title">Completion</h3>
            <pre aria-live="polite" data-testid="fim-output">{call.text}</pre>
          </section>
        )}
      </Panel>
      {call.facts && <Facts facts={call.facts} />}
    </>
  );
}

/** The call's usage, timing and backend: what the last chunk and the response headers said. */
function Facts({ facts }: { facts: CallFacts }) {
  const rows = useMemo(
    () =>
      [
        ["Model", facts.model],
        ["Finish reason", facts.finish ?? undefined],
        ["Prompt tokens", facts.usage ? count(facts.usage.prompt_tokens) : undefined],
        ["Completion tokens", facts.usage ? count(facts.usage.completion_tokens) : undefined],
        ["Total tokens", facts.usage ? count(facts.usage.total_tokens) : undefined],
        ["Backend", facts.backend ?? undefined],
        ["Deployment", facts.deployment ?? undefined],
        ["Response cache", facts.cache ?? undefined],
        ["Server-Timing", facts.timing ?? undefined],
      ].filter((row): row is [string, string] => Boolean(row[1])),
    [facts],
  );
  return (
    <Panel title="Last call">
      <dl class="pg-facts">
        {rows.map(([term, value]) => (
          <>
            <dt>{term}</dt>
            <dd data-testid={`fact-${term.toLowerCase().replace(/[^a-z]+/g, "-")}`}>{value}</dd>
          </>
        ))}
      </dl>
      {!facts.usage && <p class="muted">The stream ended without a usage chunk.</p>}
    </Panel>
  );
}
