import { UnsupportedByProvider, type Completion, type CompletionEvent, type Embeddings, type InferenceProvider, type Moderation } from "../types.js";

/** Base of the providers that only hear, speak or read pages (Amazon Transcribe, Polly, Textract): every text call is unsupported. */
export abstract class AudioOnlyProvider implements InferenceProvider {
  abstract readonly backend: string;

  async chat(): Promise<Completion> {
    throw new UnsupportedByProvider(this.backend, "chat completion");
  }

  // eslint-disable-next-line require-yield
  async *chatStream(): AsyncGenerator<CompletionEvent> {
    throw new UnsupportedByProvider(this.backend, "chat completion");
  }

  async fim(): Promise<Completion> {
    throw new UnsupportedByProvider(this.backend, "fill-in-the-middle completion");
  }

  // eslint-disable-next-line require-yield
  async *fimStream(): AsyncGenerator<CompletionEvent> {
    throw new UnsupportedByProvider(this.backend, "fill-in-the-middle completion");
  }

  async embed(): Promise<Embeddings> {
    throw new UnsupportedByProvider(this.backend, "embeddings");
  }

  async moderate(): Promise<Moderation[]> {
    throw new UnsupportedByProvider(this.backend, "moderation");
  }
}
