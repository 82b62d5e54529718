/**
 * Voice samples in the files bucket, one WAV object per voice under its workspace's prefix
 * (`workspaces/<workspace>/voices/<id>.wav`, shared/domain/voices.ts `sampleKeyFor`).
 */
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { filesBucket } from "../config.js";
import { VOICE_SAMPLE_TAG } from "../domain/voices.js";
import { s3 } from "./client.js";

/** How long the S3 URL behind /sample lives: just long enough to start the transfer. */
export const SAMPLE_URL_SECONDS = 300;

export const voiceBlobs = {
  async put(key: string, wav: Buffer): Promise<void> {
    // Tagged for the voices lifecycle rule (infra/data-stack.ts); tagging on PutObject needs s3:PutObjectTagging (the row's `tagObjects`).
    const tag = new URLSearchParams({ [VOICE_SAMPLE_TAG.key]: VOICE_SAMPLE_TAG.value }).toString();
    await s3.send(new PutObjectCommand({ Bucket: filesBucket(), Key: key, Body: wav, ContentType: "audio/wav", Tagging: tag }));
  },

  async remove(key: string): Promise<void> {
    await s3.send(new DeleteObjectCommand({ Bucket: filesBucket(), Key: key }));
  },

  /** The sample's bytes (a few MB at most), for upstreams that clone a voice from reference audio. */
  async bytes(key: string): Promise<Buffer> {
    const out = await s3.send(new GetObjectCommand({ Bucket: filesBucket(), Key: key }));
    return Buffer.from(await out.Body!.transformToByteArray());
  },

  /** A short-lived URL that serves the bytes as `audio/wav`, the one type the SDK's getSampleAudio accepts. */
  async sampleUrl(key: string): Promise<string> {
    const command = new GetObjectCommand({ Bucket: filesBucket(), Key: key, ResponseContentType: "audio/wav" });
    return getSignedUrl(s3, command, { expiresIn: SAMPLE_URL_SECONDS });
  },
};
