/**
 * Library documents driven by the official, unmodified SDK (`client.beta.libraries.documents.*`) against the local
 * server, processing included (the local Step Functions runner, OCR, embeddings, LanceDB): every answer parsed by the
 * SDK's own models.
 */
import { Mistral } from "@mistralai/mistralai";
import { HTTPValidationError, SDKError } from "@mistralai/mistralai/models/errors";
import { beforeAll, describe, expect, it } from "vitest";
import { useEmbeddedApi } from "../support/api.js";
import { errorOf, sdkClient } from "../support/sdk.js";

const { api, tenant } = useEmbeddedApi({ tenant: "per-file" });
let client: Mistral;
beforeAll(() => {
  client = sdkClient(api, tenant.key);
});

/** Polls the SDK's status call until processing is over. */
async function processed(libraryId: string, documentId: string) {
  for (const until = Date.now() + 60_000; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
    const status = await client.beta.libraries.documents.status({ libraryId, documentId });
    if (status.processStatus !== "todo" && status.processStatus !== "in_progress") return status;
  }
  throw new Error(`document ${documentId} was not processed in 60 s`);
}

describe("client.beta.libraries.documents: upload, status, get, list, textContent, getSignedUrl, extractedTextSignedUrl, update, librariesDocumentsUpdateV1, reprocess, delete", () => {
  it("uploads a document, waits for processing, reads its text and URLs, changes, reprocesses and deletes it", async () => {
    const library = await client.beta.libraries.create({ name: "SDK documents" });
    const libraryId = library.id;
    const content = new TextEncoder().encode("# Leave\n\nEmployees take twenty-five days of leave a year.");
    const uploaded = await client.beta.libraries.documents.upload({ libraryId, requestBody: { file: { fileName: "leave.md", content } } });
    expect(uploaded).toMatchObject({ libraryId, name: "leave.md", extension: "md", size: content.length, processStatus: "todo" });
    expect(uploaded.createdAt).toBeInstanceOf(Date);
    const documentId = uploaded.id;

    expect(await processed(libraryId, documentId)).toMatchObject({ documentId, processStatus: "done" });
    expect(await client.beta.libraries.documents.get({ libraryId, documentId })).toMatchObject({ id: documentId, processStatus: "done", numberOfPages: 1 });
    const listed = await client.beta.libraries.documents.list({ libraryId });
    expect(listed.data.map((d) => d.id)).toEqual([documentId]);
    expect(listed.pagination).toMatchObject({ totalItems: 1, hasMore: false });
    expect((await client.beta.libraries.documents.textContent({ libraryId, documentId })).text).toContain("twenty-five days of leave");
    const url = await client.beta.libraries.documents.getSignedUrl({ libraryId, documentId });
    expect(new Uint8Array(await (await fetch(url)).arrayBuffer())).toEqual(content);
    expect((await (await fetch(await client.beta.libraries.documents.extractedTextSignedUrl({ libraryId, documentId }))).json()).pages[0].text).toContain("leave");
    expect(await client.beta.libraries.get({ libraryId })).toMatchObject({ nbDocuments: 1, totalSize: content.length });

    expect(await client.beta.libraries.documents.update({ libraryId, documentId, updateDocumentRequest: { name: "leave-policy.md" } })).toMatchObject({ name: "leave-policy.md" });
    expect(await client.beta.libraries.documents.librariesDocumentsUpdateV1({ libraryId, documentId, updateDocumentRequest: { attributes: { year: 2026 } } })).toMatchObject({ attributes: { year: 2026 } });
    await processed(libraryId, documentId);
    await client.beta.libraries.documents.reprocess({ libraryId, documentId });
    expect(await processed(libraryId, documentId)).toMatchObject({ processStatus: "done" });

    await client.beta.libraries.documents.delete({ libraryId, documentId });
    expect((await errorOf(client.beta.libraries.documents.get({ libraryId, documentId }), SDKError)).statusCode).toBe(404);
    expect(await client.beta.libraries.get({ libraryId })).toMatchObject({ nbDocuments: 0, totalSize: 0 });
  });

  it("the same bytes again answer the same document; unreadable bytes are an HTTPValidationError", async () => {
    const library = await client.beta.libraries.create({ name: "SDK dedupe" });
    const content = new TextEncoder().encode("Desks are shared.");
    const first = await client.beta.libraries.documents.upload({ libraryId: library.id, requestBody: { file: { fileName: "desks.txt", content } } });
    const again = await client.beta.libraries.documents.upload({ libraryId: library.id, requestBody: { file: { fileName: "other.txt", content } } });
    expect(again.id).toBe(first.id);
    const error = await errorOf(client.beta.libraries.documents.upload({ libraryId: library.id, requestBody: { file: { fileName: "x.bin", content: new Uint8Array([0, 255, 0, 254]) } } }), HTTPValidationError);
    expect(error.detail?.[0]?.loc).toEqual(["body", "file"]);
  });
});

describe("an agent over a library: beta.agents.create with a document_library tool, beta.conversations.start and startStream", () => {
  it("answers through document_library over a PDF, a DOCX and a scan, quoting the retrieved passage, plain and streamed", async () => {
    const { aDocx, aTextPdf, INVOICE_PNG, INVOICE_TEXT } = await import("../support/documents.js");
    const library = await client.beta.libraries.create({ name: "Agent's library" });
    const files = [
      { fileName: "travel.pdf", content: new Uint8Array(aTextPdf([[["Travel policy"], ["Trains are booked in second class."]]])) },
      { fileName: "onboarding.docx", content: new Uint8Array(aDocx([{ heading: 1, text: "Onboarding" }, "Laptops are issued on the first day."])) },
      { fileName: "invoice.png", content: new Uint8Array(INVOICE_PNG) },
    ];
    for (const file of files) {
      const document = await client.beta.libraries.documents.upload({ libraryId: library.id, requestBody: { file } });
      expect(await processed(library.id, document.id)).toMatchObject({ processStatus: "done" });
    }
    const agent = await client.beta.agents.create({ model: "mistral-small-latest", name: "Librarian", tools: [{ type: "document_library", libraryIds: [library.id] }] });

    const answer = await client.beta.conversations.start({ agentId: agent.id, inputs: "How are trains booked?" });
    const execution = answer.outputs.find((o) => o.type === "tool.execution");
    expect(execution).toMatchObject({ type: "tool.execution", name: "document_library" });
    const reply = answer.outputs.at(-1);
    expect(reply?.type).toBe("message.output");
    const text = JSON.stringify(reply);
    expect(text).toContain("Trains are booked in second class.");
    expect(text).toContain("Laptops are issued on the first day.");
    expect(text).toContain(INVOICE_TEXT);

    const events: { event: string; data: { type: string } }[] = [];
    for await (const event of await client.beta.conversations.startStream({ agentId: agent.id, inputs: "How are trains booked?" })) events.push(event as never);
    const types = events.map((e) => e.data.type);
    expect(types[0]).toBe("conversation.response.started");
    expect(types).toContain("tool.execution.started");
    expect(types).toContain("tool.execution.done");
    expect(types.at(-1)).toBe("conversation.response.done");
    const streamed = events.filter((e) => e.data.type === "message.output.delta").map((e) => (e.data as unknown as { content: string }).content).join("");
    expect(streamed).toContain("Trains are booked in second class.");
    expect(streamed).toContain(INVOICE_TEXT);
  }, 180_000);
});
