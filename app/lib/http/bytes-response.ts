// A Response whose body is bytes already in memory: a page's document (entry.server.tsx) and the answer of a
// page's PostgREST call (data-fetch.server.ts). undici's Response copies such bytes and sets up a byte stream
// to read them back through, and reading them (text(), server.ts's reader) goes through that stream: ~4 % of an
// inbox page's CPU for those two (docs/decisions/115-rows-as-markup.md). This one keeps the bytes and reads
// them straight; the stream is made only for a caller that asks for `body`. Shared by server.ts, which takes
// a document's bytes without a stream (bytesOf), and the build, each with its own copy: hence Symbol.for.

const BYTES = Symbol.for('tend.response-bytes');

type WithBytes = { [BYTES]?: () => Uint8Array<ArrayBuffer> | null };

/** The body's bytes, read (the body is used after this), if the response is a BytesResponse; else undefined. */
export const bytesOf = (response: Response): Uint8Array<ArrayBuffer> | null | undefined =>
  (response as WithBytes)[BYTES]?.();

export class BytesResponse extends Response {
  #bytes: Uint8Array<ArrayBuffer> | null;
  #used = false;
  #stream: ReadableStream<Uint8Array<ArrayBuffer>> | null = null;

  constructor(bytes: Uint8Array<ArrayBuffer> | null, init?: ResponseInit) {
    super(null, init);
    this.#bytes = bytes;
  }

  /** The bytes, once: a body read twice is refused, as fetch's is. */
  #take(): Uint8Array<ArrayBuffer> {
    if (this.#used) throw new TypeError('Body is unusable: Body has already been read');
    this.#used = true;
    return this.#bytes ?? new Uint8Array(0);
  }

  [BYTES](): Uint8Array<ArrayBuffer> | null {
    return this.#bytes === null ? null : this.#take();
  }

  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> | null {
    if (this.#bytes === null) return null;
    if (!this.#stream) {
      const bytes = this.#bytes;
      this.#stream = new ReadableStream({
        pull: (controller) => {
          this.#used = true;
          controller.enqueue(bytes);
          controller.close();
        },
      });
    }
    return this.#stream;
  }

  override get bodyUsed(): boolean {
    return this.#used;
  }

  override async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = this.#take();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  override async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return new Uint8Array(await this.arrayBuffer());
  }

  override async text(): Promise<string> {
    return new TextDecoder().decode(this.#take());
  }

  override async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  override async blob(): Promise<Blob> {
    return new Blob([this.#take()], { type: this.headers.get('content-type') ?? '' });
  }

  override async formData(): Promise<FormData> {
    return new Response(this.#take(), { headers: this.headers }).formData();
  }

  override clone(): BytesResponse {
    if (this.#used) throw new TypeError('Response.clone: Body has already been consumed.');
    return new BytesResponse(this.#bytes, { status: this.status, statusText: this.statusText, headers: this.headers });
  }
}
