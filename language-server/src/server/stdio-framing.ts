/** Longest header section accepted (a real one is under 100 bytes: Content-Length and maybe Content-Type). */
const MAX_HEADER_BYTES = 8 * 1024;
/** Largest Content-Length accepted: what a Buffer can hold. */
const MAX_CONTENT_LENGTH = 2 ** 31 - 1;
const CR = 0x0d;
const LF = 0x0a;
/** RFC 7230 token characters: what a header name is made of. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Follows LSP base-protocol framing (`Content-Length: N` CRLF ... CRLF CRLF, then N bytes of JSON)
 * through the chunks of a byte stream, and says where it breaks. vscode-jsonrpc's reader does not:
 * it buffers bytes without a blank line for ever, and reports a header it cannot read only to an
 * error event that vscode-languageserver does not listen to, then reads on; a server fed garbage
 * just goes quiet.
 */
export class FramingCheck {
  private offset = 0;
  private inHeader = true;
  private headerBytes = 0;
  private line = '';
  private lineCount = 0;
  private afterCR = false;
  private contentLength: number | undefined;
  private bodyLeft = 0;
  private bodyStarted = false;
  private broken: string | undefined;

  /** The next chunk; returns what is wrong once the framing is broken (and from then on). */
  push(chunk: Uint8Array): string | undefined {
    this.broken ??= this.follow(chunk);
    return this.broken;
  }

  private follow(chunk: Uint8Array): string | undefined {
    for (let at = 0; at < chunk.length;) {
      if (this.inHeader) {
        const problem = this.headerByte(chunk[at]!);
        if (problem) return `${problem} (at byte ${this.offset + at} of the input)`;
        at++;
      } else if (!this.bodyStarted) {
        const byte = chunk[at]!;
        // A JSON-RPC message is an object (or a batch, an array), maybe after white space.
        if (byte === 0x7b || byte === 0x5b) this.bodyStarted = true;
        else if (byte !== 0x20 && byte !== 0x09 && byte !== CR && byte !== LF) {
          return `the message body does not start with a JSON object (at byte ${this.offset + at} of the input)`;
        }
        at++;
        if (--this.bodyLeft === 0) this.startHeader();
      } else {
        const skipped = Math.min(this.bodyLeft, chunk.length - at);
        at += skipped;
        this.bodyLeft -= skipped;
        if (this.bodyLeft === 0) this.startHeader();
      }
    }
    this.offset += chunk.length;
    return undefined;
  }

  private startHeader(): void {
    this.inHeader = true;
    this.headerBytes = 0;
    this.line = '';
    this.lineCount = 0;
    this.afterCR = false;
    this.contentLength = undefined;
  }

  private headerByte(byte: number): string | undefined {
    if (++this.headerBytes > MAX_HEADER_BYTES) return `a message header longer than ${MAX_HEADER_BYTES} bytes`;
    if (this.afterCR) {
      if (byte !== LF) return 'a CR not followed by LF in a message header';
      this.afterCR = false;
      return this.endOfLine();
    }
    if (byte === CR) {
      this.afterCR = true;
      return undefined;
    }
    if (byte === LF) return 'a header line that ends in LF instead of CRLF';
    // Headers are ASCII text (the base protocol says so; vscode-jsonrpc decodes them as ASCII).
    if ((byte < 0x20 && byte !== 0x09) || byte > 0x7e) {
      return `byte 0x${byte.toString(16).padStart(2, '0')} in a message header, which is ASCII text`;
    }
    this.line += String.fromCharCode(byte);
    return undefined;
  }

  private endOfLine(): string | undefined {
    const line = this.line;
    this.line = '';
    if (line === '') {
      if (this.lineCount === 0) return 'an empty line where a message header was expected';
      if (this.contentLength === undefined) return 'a message header without Content-Length';
      this.inHeader = false;
      this.bodyStarted = false;
      this.bodyLeft = this.contentLength;
      return undefined;
    }
    this.lineCount++;
    const colon = line.indexOf(':');
    if (colon <= 0 || !HEADER_NAME.test(line.slice(0, colon))) return 'a message header line that is not "Name: value"';
    if (line.slice(0, colon).toLowerCase() !== 'content-length') return undefined;
    const value = line.slice(colon + 1).trim();
    const length = /^\d{1,10}$/.test(value) ? Number(value) : NaN;
    if (!(length > 0 && length <= MAX_CONTENT_LENGTH)) return 'a Content-Length that is not a positive whole number';
    this.contentLength = length;
    return undefined;
  }
}

/**
 * Watches the LSP input beside the connection's own reader (both get every chunk) and calls
 * `onBroken` once, with the reason, when the framing breaks. Attach it after the connection
 * listens: a `data` listener starts the stream flowing, and chunks before the reader's would be lost to it.
 */
export function watchFraming(input: NodeJS.ReadableStream, onBroken: (reason: string) => void): void {
  const check = new FramingCheck();
  const listener = (chunk: Buffer | string) => {
    const problem = check.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    if (problem === undefined) return;
    input.removeListener('data', listener);
    onBroken(problem);
  };
  input.on('data', listener);
}
