import { describe, expect, it } from "vitest";
import { handler } from "../../../functions/audio/voice-sample.js";
import { PRESET_VOICES } from "../../../shared/domain/voices-presets.js";
import { mockDynamo, mockS3 } from "../../support/aws-mocks.js";
import { aCaller, anEvent, invoke } from "../../support/builders.js";
import { useFakeTables } from "../../support/fake-table.js";
import { aVoiceItem, aVoiceRecord } from "../../support/voice-items.js";

const dynamo = mockDynamo();
const s3 = mockS3({ resolves: {} });
const tables = useFakeTables(dynamo);
const caller = aCaller();
const sample = (id: string) => anEvent({ path: `/v1/audio/voices/${id}/sample`, resource: "/v1/audio/voices/{voice_id}/sample", pathParameters: { voice_id: id }, caller });

describe("GET /v1/audio/voices/{voice_id}/sample", () => {
  it("answers 302 to a short-lived S3 URL of the sample that serves it as audio/wav", async () => {
    const record = aVoiceRecord(caller);
    tables.put("audio", aVoiceItem(record));

    const response = await invoke(handler, sample(record.id));

    expect(response.statusCode).toBe(302);
    expect(response.body).toBe("");
    const location = new URL(String(response.headers?.location));
    expect(location.pathname).toMatch(new RegExp(`/workspaces/${caller.workspace}/voices/${record.id}\\.wav$`));
    expect(location.searchParams.get("response-content-type")).toBe("audio/wav");
    expect(location.searchParams.get("X-Amz-Expires")).toBe("300");
    expect(s3.calls()).toHaveLength(0);
  });

  it("answers 404 for another workspace's voice", async () => {
    const theirs = aVoiceRecord(aCaller());
    tables.put("audio", aVoiceItem(theirs));

    const response = await invoke(handler, sample(theirs.id));

    expect(response.statusCode).toBe(404);
    expect(response.headers?.location).toBeUndefined();
  });
});

describe("GET /v1/audio/voices/{voice_id}/sample of a preset voice", () => {
  it("answers its shipped WAV bytes as audio/wav, base64 for API Gateway, in any workspace", async () => {
    const preset = PRESET_VOICES[0]!;

    const response = await invoke(handler, sample(preset.id));

    expect(response.statusCode).toBe(200);
    expect(response.headers?.["content-type"]).toBe("audio/wav");
    expect(response.isBase64Encoded).toBe(true);
    expect(response.body).toBe(preset.wav);
    expect(dynamo.calls()).toHaveLength(0);
  });
});
