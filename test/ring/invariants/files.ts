import { expect } from "vitest";
import { filesClient } from "../../support/files-client.js";
import { fulfilled, invariant } from "../invariant.js";

const UPLOADS = 12;
const DOOMED = 5;

invariant({
  name: `files: the list total equals the live files after ${UPLOADS} parallel uploads and ${DOOMED} files deleted twice at once`,
  writers: UPLOADS + 2 * DOOMED,
  async setup({ api, tenant }) {
    const files = filesClient(api, tenant);
    const doomed = await Promise.all(Array.from({ length: DOOMED }, (_, i) => files.uploaded({ filename: `doomed-${i}.jsonl` })));
    return { files, doomed };
  },
  // Writers 0..UPLOADS-1 upload; the others delete each doomed file twice, racing each other and the uploads.
  async write({ files, doomed }, i) {
    if (i < UPLOADS) return { kind: "upload" as const, reply: await files.upload({ filename: `c-${i}.jsonl` }) };
    return { kind: "delete" as const, reply: await files.remove(doomed[(i - UPLOADS) % DOOMED]!.id) };
  },
  async check({ files }, outcomes) {
    const writes = fulfilled(outcomes);
    const uploads = writes.filter((w) => w.kind === "upload");
    const deletions = writes.filter((w) => w.kind === "delete");
    expect(uploads.map((u) => u.reply.status)).toEqual(Array(UPLOADS).fill(200));
    expect(deletions.filter((d) => d.reply.status === 200)).toHaveLength(DOOMED);
    expect(deletions.filter((d) => d.reply.status === 404)).toHaveLength(DOOMED);
    const listed = (await files.list({ page_size: 100 })).body;
    expect(listed.total).toBe(UPLOADS);
    expect(listed.data.map((f: { id: string }) => f.id).toSorted()).toEqual(uploads.map((u) => u.reply.body.id).toSorted());
  },
});
