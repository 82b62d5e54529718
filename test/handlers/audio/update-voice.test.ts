import { beforeEach, describe, expect, it } from "vitest";
import { handler } from "../../../functions/audio/update-voice.js";
import { PRESET_VOICES } from "../../../shared/domain/voices-presets.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, aJsonEvent, invoke } from "../../support/builders.js";
import { serveTables, type FakeTables } from "../../support/fake-table.js";
import { aVoiceItem, aVoiceRecord } from "../../support/voice-items.js";

const dynamo = mockDynamo();
let tables: FakeTables;
beforeEach(() => {
  tables = serveTables(dynamo, {}, { writes: true });
});
const caller = aCaller();
const update = (id: string, body: unknown) =>
  aJsonEvent(body, { method: "PATCH", path: `/v1/audio/voices/${id}`, resource: "/v1/audio/voices/{voice_id}", pathParameters: { voice_id: id }, caller });

describe("PATCH /v1/audio/voices/{voice_id}", () => {
  it("changes the fields given and keeps the others", async () => {
    const record = aVoiceRecord(caller, { name: "old", gender: "male", languages: ["en"] });
    tables.put("audio", aVoiceItem(record));

    const response = await invoke(handler, update(record.id, { name: "new", tags: ["warm"], age: 30 }));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ id: record.id, name: "new", tags: ["warm"], age: 30, gender: "male", languages: ["en"] });
    expect(tables.items("audio")[0]).toMatchObject({ name: "new", tags: ["warm"], age: 30, gender: "male" });
  });

  it("clears a field given as null, languages to [], and keeps the name on a null name", async () => {
    const record = aVoiceRecord(caller, { name: "kept", gender: "male", languages: ["en"], description: "d" });
    tables.put("audio", aVoiceItem(record));

    const response = await invoke(handler, update(record.id, { name: null, gender: null, languages: null, description: null }));

    expect(response.json).toMatchObject({ name: "kept", gender: null, languages: [], description: null });
  });

  it("answers the voice unchanged for an empty body", async () => {
    const record = aVoiceRecord(caller);
    tables.put("audio", aVoiceItem(record));

    expect((await invoke(handler, update(record.id, {}))).json).toMatchObject({ id: record.id, name: record.name });
  });

  it("answers 404 for another workspace's voice and leaves it as it was", async () => {
    const theirs = aVoiceRecord(aCaller(), { name: "theirs" });
    tables.put("audio", aVoiceItem(theirs));

    const response = await invoke(handler, update(theirs.id, { name: "mine now" }));

    expect(response.statusCode).toBe(404);
    expect(tables.items("audio")).toEqual([aVoiceItem(theirs)]);
  });

  it("refuses a description over 500 characters and an id that is no UUID with 422", async () => {
    const record = aVoiceRecord(caller);
    tables.put("audio", aVoiceItem(record));
    expect((await invoke(handler, update(record.id, { description: "x".repeat(501) }))).statusCode).toBe(422);
    expect((await invoke(handler, update("nope", { name: "x" }))).json.detail[0].loc).toEqual(["path", "voice_id"]);
  });
});

describe("PATCH /v1/audio/voices/{voice_id} of a preset voice", () => {
  it("answers 403 preset_voice_read_only and writes nothing", async () => {
    const response = await invoke(handler, update(PRESET_VOICES[0]!.id, { name: "mine" }));

    expect(response.statusCode).toBe(403);
    expect(response.json).toMatchObject({ object: "error", type: "permission_error", code: "preset_voice_read_only" });
    expect(dynamo.calls()).toHaveLength(0);
  });
});
