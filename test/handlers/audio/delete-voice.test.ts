import { DeleteObjectCommand } from "@aws-sdk/client-s3";
import { beforeEach, describe, expect, it } from "vitest";
import { handler } from "../../../functions/audio/delete-voice.js";
import { PRESET_VOICES } from "../../../shared/domain/voices-presets.js";
import { mockDynamo, mockS3 } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { serveTables, type FakeTables } from "../../support/fake-table.js";
import { aVoiceItem, aVoiceRecord } from "../../support/voice-items.js";

const dynamo = mockDynamo();
const s3 = mockS3({ resolves: {} });
let tables: FakeTables;
beforeEach(() => {
  tables = serveTables(dynamo, {}, { writes: true });
});
const caller = aCaller();
const remove = (id: string) => anEvent({ method: "DELETE", path: `/v1/audio/voices/${id}`, resource: "/v1/audio/voices/{voice_id}", pathParameters: { voice_id: id }, caller });

describe("DELETE /v1/audio/voices/{voice_id}", () => {
  it("answers the voice as it was and removes its record and sample object", async () => {
    const record = aVoiceRecord(caller, { name: "gone" });
    tables.put("audio", aVoiceItem(record));

    const response = await invoke(handler, remove(record.id));

    expect(response.statusCode).toBe(200);
    expect(response.json).toMatchObject({ id: record.id, name: "gone", type: "custom" });
    expect(tables.items("audio")).toEqual([]);
    expect(s3.commandCalls(DeleteObjectCommand).map((c) => c.args[0].input.Key)).toEqual([`workspaces/${caller.workspace}/voices/${record.id}.wav`]);
  });

  it("answers 404 the second time", async () => {
    const record = aVoiceRecord(caller);
    tables.put("audio", aVoiceItem(record));
    await invoke(handler, remove(record.id));

    expect((await invoke(handler, remove(record.id))).statusCode).toBe(404);
  });

  it("answers 404 for another workspace's voice and removes nothing", async () => {
    const theirs = aVoiceRecord(aCaller());
    tables.put("audio", aVoiceItem(theirs));

    const response = await invoke(handler, remove(theirs.id));

    expect(response.statusCode).toBe(404);
    expect(tables.items("audio")).toHaveLength(1);
    expect(s3.calls()).toHaveLength(0);
  });
});

describe("DELETE /v1/audio/voices/{voice_id} of a preset voice", () => {
  it("answers 403 preset_voice_read_only and removes nothing", async () => {
    const response = await invoke(handler, remove(PRESET_VOICES[0]!.id));

    expect(response.statusCode).toBe(403);
    expect(response.json).toMatchObject({ code: "preset_voice_read_only" });
    expect(dynamo.calls()).toHaveLength(0);
    expect(s3.calls()).toHaveLength(0);
  });
});
