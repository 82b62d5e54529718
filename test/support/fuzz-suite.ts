/**
 * The fuzz ring's suite for a share of the route table (docs/testing.md): valid and broken requests
 * generated from each handler's schemas, through the local API Gateway stand-in and the real handler chain,
 * against the embedded backends. test/fuzz/routes-*.fuzz.test.ts split the rows (`fuzzShare`) so parallel workers share them.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routes, type RouteRow } from "../../functions/routes.js";
import { routeKey } from "../../shared/http/policy.js";
import { useEmbeddedApi } from "./api.js";
import { fuzzRoute, ringSettings, type RingTarget, type SemanticRefusals } from "./fuzz-ring.js";
import { fixtureId, newOwner } from "./route-fixtures.js";
import { newTenant } from "./tenant.js";

/** 422s a route gives to input its schemas accept, because the content is wrong for what it is (listed, with why). */
const variablesMatchContent: SemanticRefusals = {
  variables: { reason: "declared variables must be the {{placeholders}} of the content", answer: (body) => body.detail.some((i: { msg: string }) => /Variables must match/.test(i.msg)) },
};
/** A role id is any spelling of a role (name, A/M, static UUID): the roles are a table, not a schema. */
const knownRoles: SemanticRefusals = {
  roles: { reason: "role ids must name a workspace role", answer: (body) => body.detail.every((i: { msg: string }) => /^Unknown role /.test(i.msg)) },
};
/** A report's default end is today: a start given alone can fall after it or too long before it. */
const reportRange: SemanticRefusals = {
  range: { reason: "from must be on or before to (default: today), at most 366 days before it", answer: (body) => body.detail.every((i: { msg: string }) => /^from must be on or before to/.test(i.msg)) },
};
/** The stream follows one root execution: `*` (the SDK's default for every filter) names none. */
const streamNeedsAnExecution: SemanticRefusals = {
  execution: { reason: "one of root_workflow_exec_id, parent_workflow_exec_id, workflow_exec_id is required ('*' is not an id)", answer: (body) => body.detail.every((i: { msg: string }) => /^One of root_workflow_exec_id/.test(i.msg)) },
};
/** A registration's program must pass the compiler's rules, its schemas must be JSON Schemas, each workflow named once. */
const registrableWorkflows: SemanticRefusals = {
  program: {
    reason: "programs must pass the compiler's rules (docs/workflows.md); definition schemas must be JSON Schemas 2020-12; a workflow is named once per registration",
    answer: (body) => body.detail.every((i: { msg: string; type: string }) => i.type.startsWith("program.") || /^Not a valid JSON Schema|is defined twice|needs a hardened deployment/.test(i.msg)),
  },
};
/** Index metrics name indexes: the deployment's, which are records, not a schema. */
const knownIndexes: SemanticRefusals = {
  indexes: { reason: "index_metrics must name the deployment's indexes", answer: (body) => body.detail.every((i: { msg: string }) => /^Attempted to update unknown index /.test(i.msg)) },
};
/** A sample is bytes in base64 that must be WAV audio: its schema can say it is text, not what the text decodes to. */
const audioSamples: SemanticRefusals = {
  sample: {
    reason: "sample_audio must be base64 of a WAV file with audio in it (docs/audio.md)",
    answer: (body) => body.detail.every((i: { loc: unknown[]; msg: string }) => i.loc.join(".") === "body.sample_audio" && /^The (sample is|WAV sample holds)/.test(i.msg)),
  },
};

/** A reset goes back to a point of the run's history: an event id is a number its schema accepts, not one the run has. */
const resetPoints: SemanticRefusals = {
  point: { reason: "event_id must name an EVENT_TYPE_WORKFLOW_TASK_COMPLETED of the latest run's history", answer: (body) => Array.isArray(body.valid_reset_events) },
};

/** Transcription audio is a file, an uploaded file's id or a URL: exactly one, and it must be audio we can read (docs/audio.md). */
const transcribableAudio: SemanticRefusals = {
  audio: {
    reason: "one of file, file_id, file_url, holding WAV, MP3, FLAC or Ogg audio (fetched under the outbound rules)",
    answer: (body) => body.detail.every((i: { loc: unknown[] }) => ["body", "body.file", "body.file_id", "body.file_url"].includes(i.loc.join("."))),
  },
};
/** An OCR document must be one we can read and the pages asked for must exist (docs/ocr.md). */
const readableDocuments: SemanticRefusals = {
  document: {
    reason: "a PDF or an image (PNG, JPEG, TIFF, GIF, BMP, WebP) by its bytes, from a file of the workspace, a data: URL or a URL fetched under the outbound rules; pages that the document has",
    answer: (body) => body.detail.every((i: { loc: unknown[] }) => ["body.document", "body.pages"].includes(i.loc.join("."))),
  },
};
/** Reference audio is not taken by the speech route: a voice is created from it first (docs/audio.md). */
const noReferenceAudio: SemanticRefusals = {
  refAudio: { reason: "ref_audio is refused; create a voice and name it with voice_id", answer: (body) => body.detail.every((i: { loc: unknown[] }) => i.loc.join(".") === "body.ref_audio") },
};

/** A schedule's times and input have rules beyond their types (docs/workflows.md, "Schedules"): the schedules' 422 says which. */
const schedulableSpecs: SemanticRefusals = {
  spec: {
    reason: "schedule times must be usable (5-field crons, fixed ISO 8601 durations, an IANA zone, ranges within their fields, one time source at least); the input an object; the workflow named",
    answer: (body) => body.code === "WF_1200" && body.detail.every((i: { loc: unknown[] }) => i.loc[0] === "body" && (i.loc[1] === "schedule" || i.loc[1] === "workflow_identifier")),
  },
};

/** A conversation turn must make a conversation (docs/conversations.md): its schemas cannot say which entries answer which. */
const conversationTurns: SemanticRefusals = {
  turn: {
    reason:
      "a conversation starts with either model or agent_id (instructions and tools then belong to the agent); function results answer pending function calls, each once, and every call is answered; a turn takes at most 40 input entries; a restart names an entry of the conversation",
    answer: (body) => body.detail.every((i: { loc: unknown[] }) => ["body.model", "body.agent_id", "body.instructions", "body.tools", "body.inputs", "body.from_entry_id"].includes(i.loc.slice(0, 2).join("."))),
  },
};

export const semanticRefusals: Record<string, SemanticRefusals> = {
  "POST /v1/conversations": conversationTurns,
  "POST /v1/conversations/{conversation_id}": conversationTurns,
  "POST /v1/conversations/{conversation_id}/restart": conversationTurns,
  "POST /v1/workflows/executions/{execution_id}/reset": resetPoints,
  "POST /v1/audio/transcriptions": transcribableAudio,
  "POST /v1/audio/speech": noReferenceAudio,
  "POST /v1/ocr": readableDocuments,
  "POST /v1/workflows/schedules": schedulableSpecs,
  "PATCH /v1/workflows/schedules/{schedule_id}": schedulableSpecs,
  "GET /v1/workflows/events/stream": streamNeedsAnExecution,
  "POST /v1/workflows/register": registrableWorkflows,
  "POST /v2/prompts": variablesMatchContent,
  "POST /v2/prompts/{prompt_id}/versions": variablesMatchContent,
  "PUT /v1/service-accounts/{service_account_id}/roles": knownRoles,
  "GET /v1/usage": reportRange,
  "PUT /v1/rag/deployments/{deployment_id}/metrics": knownIndexes,
  "POST /v1/audio/voices": audioSamples,
};

/** How many files the ring is split over (test/fuzz/routes-1..4.fuzz.test.ts): one worker each. */
export const FUZZ_SHARES = 4;

/**
 * Share `index` (0-based) of the table: every FUZZ_SHARES-th row in route-key order, so each share holds about
 * as many rows, and about as many of each area, whatever areas grow.
 */
export function fuzzShare(index: number): RouteRow[] {
  return routes.toSorted((a, b) => routeKey(a).localeCompare(routeKey(b))).filter((_, position) => position % FUZZ_SHARES === index);
}

export function fuzzSuite(share: string, rows: readonly RouteRow[]): void {
  const { api } = useEmbeddedApi({ tenant: "none" });
  const settings = ringSettings(routes.length);
  let target: RingTarget;
  const sent = new Map<string, number>();

  beforeAll(async () => {
    const owner = newOwner(api, await newTenant());
    target = {
      api,
      owner,
      hints: {
        model: fc.constantFrom("mistral-small-latest", "mistral-embed", "codestral-latest", "mistral-large-latest"),
        input_files: fc.constant([await fixtureId(owner, "file_id")]),
        agent_id: fc.constant(await fixtureId(owner, "agent_id")),
        file_id: fc.constant(await fixtureId(owner, "file_id")),
      },
    };
  }, 60_000);

  afterAll(() => {
    const total = [...sent.values()].reduce((a, b) => a + b, 0);
    console.log(`fuzz ring (${share}): ${sent.size} routes, ${total} requests (seed ${settings.seed}, ${settings.runs} per route)`);
  });

  describe(`the fuzz ring (${share})`, () => {
    it.each(rows.map((row) => [routeKey(row), row] as const))(
      "%s keeps its contract for generated requests",
      async (key, row) => {
        // A DELETE row deletes what its fixtures name: it gets fixtures of its own, so the records other rows of the
        // share name (and the fixtures made from them, a library's document) are still there after it.
        const own = row.method === "DELETE" ? { ...target, owner: { ...target.owner, made: new Map() } } : target;
        sent.set(key, await fuzzRoute(row, own, settings, semanticRefusals[key]));
        expect(sent.get(key)).toBe(settings.runs);
      },
      300_000,
    );
  });
}
