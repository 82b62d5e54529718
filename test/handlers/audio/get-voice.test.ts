import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/audio/get-voice.js";
import { PRESET_VOICES } from "../../../shared/domain/voices-presets.js";
import { mockDynamo } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { useFakeTables } from "../../support/fake-table.js";
import { aVoiceItem, aVoiceRecord } from "../../support/voice-items.js";

const dynamo = mockDynamo();
const tables = useFakeTables(dynamo);
const caller = aCaller();
const get = (id: string) => anEvent({ path: `/v1/audio/voices/${id}`, resource: "/v1/audio/voices/{voice_id}", pathParameters: { voice_id: id }, caller });

describe("GET /v1/audio/voices/{voice_id}", () => {
  it("answers the voice, without its sample", async () => {
    const record = aVoiceRecord(caller, { name: "narrator", languages: ["en", "fr"], gender: "female", description: "calm" });
    tables.put("audio", aVoiceItem(record));

    const response = await invoke(handler, get(record.id));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ id: record.id, name: "narrator", type: "custom", languages: ["en", "fr"], gender: "female", description: "calm", user_id: caller.principal });
    expect(Object.keys(response.json)).not.toContain("sample_audio");
  });

  it("answers 404 for a voice of another workspace", async () => {
    const theirs = aVoiceRecord(aCaller());
    tables.put("audio", aVoiceItem(theirs));

    const response = await invoke(handler, get(theirs.id));

    expect(response.statusCode).toBe(404);
    expect(response.json).toMatchObject({ object: "error", code: "voice_not_found" });
  });

  it("answers 404 for an id that is no UUID without reading the table", async () => {
    const response = await invoke(handler, get("not-a-voice"));

    expect(response.statusCode).toBe(404);
    expect(dynamo.commandCalls(GetCommand)).toHaveLength(0);
  });
});

describe("GET /v1/audio/voices/{voice_id} of a preset voice", () => {
  it("answers the preset, type preset with no owner, in any workspace", async () => {
    const preset = PRESET_VOICES[1]!;

    const response = await invoke(handler, get(preset.id.toUpperCase()));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ id: preset.id, name: preset.name, type: "preset", user_id: null, slug: preset.slug });
  });
});
