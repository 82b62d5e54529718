import { Writable } from "node:stream";

/**
 * The `awslambda` global that the Lambda Node runtime provides for response streaming, for the local
 * server and the tests. A handler wrapped by `streamifyResponse` is called with a writable stream;
 * `HttpResponseStream.from` attaches the status and headers, which go out before the first body byte.
 */
export interface Metadata {
  statusCode: number;
  headers?: Record<string, string>;
}

export class ResponseStream extends Writable {
  metadata: Metadata | undefined;

  constructor(
    private readonly onMetadata: (metadata: Metadata) => void,
    private readonly onChunk: (chunk: Buffer) => void,
    /** The handler ended its stream: the client's response is complete, whatever the invocation still does. */
    private readonly onEnd: () => void = () => undefined,
  ) {
    super();
  }

  setMetadata(metadata: Metadata): void {
    this.metadata = metadata;
    this.onMetadata(metadata);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.onChunk(chunk);
    done();
  }

  override _final(done: (error?: Error | null) => void): void {
    this.onEnd();
    done();
  }
}

interface AwsLambdaGlobal {
  streamifyResponse<T extends object>(handler: T): T;
  HttpResponseStream: { from(stream: ResponseStream, metadata: Metadata): ResponseStream };
}

/**
 * Installs the stand-in unless a real Lambda runtime already provides streaming. Other libraries
 * (Powertools' invoke store) may have created a partial `awslambda` object: it is completed, not replaced.
 */
export function installLambdaStreaming(): void {
  const scope = globalThis as unknown as { awslambda?: Partial<AwsLambdaGlobal> };
  if (typeof scope.awslambda?.streamifyResponse === "function") return;
  scope.awslambda = Object.assign(scope.awslambda ?? {}, {
    // The local server streams by the row's `streaming`, so the wrapped handler is used as it is.
    streamifyResponse: <T extends object>(handler: T) => handler,
    HttpResponseStream: {
      from(stream: ResponseStream, metadata: Metadata) {
        stream.setMetadata(metadata);
        return stream;
      },
    },
  } satisfies AwsLambdaGlobal);
}

