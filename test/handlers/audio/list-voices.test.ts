import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/audio/list-voices.js";
import { PRESET_VOICES } from "../../../shared/domain/voices-presets.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { useFakeTables } from "../../support/fake-table.js";
import { aVoiceItem, aVoiceRecord } from "../../support/voice-items.js";

const dynamo = mockDynamo();
const tables = useFakeTables(dynamo);
const caller = aCaller();
const list = (query: Record<string, string> = {}, who: ReturnType<typeof aCaller> | null = caller) => anEvent({ method: "GET", path: "/v1/audio/voices", query, caller: who });

const storedVoices = (count: number) => {
  const records = Array.from({ length: count }, (_, i) => aVoiceRecord(caller, { name: `voice ${i}`, createdAt: `2025-01-01T00:00:${String(i).padStart(2, "0")}.000Z` }));
  tables.put("audio", ...records.map(aVoiceItem));
  return records;
};

describe("GET /v1/audio/voices", () => {
  it("answers the first 10 custom voices, oldest first, with total, page, page_size and total_pages", async () => {
    const records = storedVoices(12);

    const response = await invoke(handler, list({ type: "custom" }));

    expect(response.statusCode).toBe(200);
    expect(response.json.items.map((v: { id: string }) => v.id)).toEqual(records.slice(0, 10).map((r) => r.id));
    expect(response.json).toMatchObject({ total: 12, page: 0, page_size: 10, total_pages: 2 });
    expect(response.json.items[0]).toStrictEqual({
      id: records[0]!.id,
      name: "voice 0",
      type: "custom",
      slug: null,
      languages: [],
      gender: null,
      age: null,
      tags: null,
      color: null,
      description: null,
      retention_notice: 30,
      created_at: "2025-01-01T00:00:00.000Z",
      user_id: caller.principal,
      trimmed_seconds: null,
    });
  });

  it("pages by limit and offset", async () => {
    const records = storedVoices(7);

    const response = await invoke(handler, list({ limit: "3", offset: "6", type: "custom" }));

    expect(response.json.items.map((v: { id: string }) => v.id)).toEqual([records[6]!.id]);
    expect(response.json).toMatchObject({ total: 7, page: 2, page_size: 3, total_pages: 3 });
  });

  it("lists the presets first for type all, then the custom voices, paging through both", async () => {
    const records = storedVoices(3);
    const presets = PRESET_VOICES.map((p) => p.id);

    const all = await invoke(handler, list());
    const straddling = await invoke(handler, list({ limit: "2", offset: String(presets.length - 1) }));

    expect(all.json.items.map((v: { id: string }) => v.id)).toEqual([...presets, ...records.map((r) => r.id)]);
    expect(all.json).toMatchObject({ total: presets.length + 3, total_pages: 1 });
    expect(straddling.json.items.map((v: { id: string }) => v.id)).toEqual([presets.at(-1), records[0]!.id]);
  });

  it("lists only the presets for type preset, without reading the table", async () => {
    storedVoices(2);

    const response = await invoke(handler, list({ type: "preset" }));

    expect(response.json).toMatchObject({ total: PRESET_VOICES.length, page: 0, page_size: 10, total_pages: 1 });
    expect(response.json.items[0]).toStrictEqual({
      id: PRESET_VOICES[0]!.id,
      name: PRESET_VOICES[0]!.name,
      type: "preset",
      slug: PRESET_VOICES[0]!.slug,
      languages: [],
      gender: null,
      age: null,
      tags: ["preset", "synthetic"],
      color: PRESET_VOICES[0]!.color,
      description: PRESET_VOICES[0]!.description,
      retention_notice: 30,
      created_at: PRESET_VOICES[0]!.createdAt,
      user_id: null,
      trimmed_seconds: null,
    });
    expect(dynamo.commandCalls(QueryCommand)).toHaveLength(0);
  });

  it("queries the caller's partition through the byCreated index, strongly consistent", async () => {
    tables.put("audio", aVoiceItem(aVoiceRecord(aCaller())));

    const response = await invoke(handler, list({ type: "custom" }));

    expect(response.json.total).toBe(0);
    for (const call of dynamo.commandCalls(QueryCommand)) {
      expect(call.args[0].input).toMatchObject({ IndexName: "byCreated", ExpressionAttributeValues: { ":ws": caller.workspace, ":voices": "VOICE#" }, ConsistentRead: true });
    }
  });

  it("refuses a limit over 100 and an unknown type with 422", async () => {
    expect((await invoke(handler, list({ limit: "101" }))).statusCode).toBe(422);
    expect((await invoke(handler, list({ type: "cloned" }))).json.detail[0].loc).toEqual(["query", "type"]);
  });

  it("answers 401 without the authorizer context", async () => {
    expect((await invoke(handler, list({}, null))).statusCode).toBe(401);
  });
});
