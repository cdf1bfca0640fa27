/**
 * The Redocly CLI frames notices in a box (`╔═╗ ║ ╚═╝`) and prints them on every run, whatever the
 * command and with no option to turn them off: on Node 20 that Node 20 is past its end of life, and
 * for `build-docs` that it now renders with Redoc 3. They say nothing about our contract, and a
 * box at every `npm start` and `npm test` reads like an alarm. This filter drops each boxed block
 * with the blank lines around it and passes every other line on unchanged, so lint problems and
 * the CLI's own errors still reach the terminal.
 */

// Colours, when the CLI writes them, come before the frame.
const ANSI = /\u001b\[[0-9;]*m/g;
const BOX_START = /^\s*╔/;
const BOX_LINE = /^\s*║/;
const BOX_END = /^\s*╚/;

export class NoticeFilter {
  private partial = '';
  private inBox = false;
  /** Blank lines held back: they are dropped when a box follows them. */
  private blanks: string[] = [];
  private afterBox = false;

  constructor(private readonly write: (text: string) => void) {}

  /** Takes a chunk of output; whole lines go on at once, a line still being written waits. */
  push(chunk: string): void {
    const lines = (this.partial + chunk).split('\n');
    this.partial = lines.pop()!;
    for (const line of lines) this.line(line);
  }

  /** The output ended: the last line (without a line end) goes on; blank lines before nothing stay dropped. */
  end(): void {
    if (this.partial !== '') this.line(this.partial, false);
    this.partial = '';
  }

  private line(line: string, newline = true): void {
    const plain = line.replace(ANSI, '');
    if (BOX_START.test(plain) || (this.inBox && BOX_LINE.test(plain))) {
      this.inBox = true;
      this.blanks = [];
      return;
    }
    if (this.inBox && BOX_END.test(plain)) {
      this.inBox = false;
      this.afterBox = true;
      return;
    }
    this.inBox = false;
    if (plain.trim() === '') {
      if (!this.afterBox) this.blanks.push(line);
      return;
    }
    this.afterBox = false;
    this.write([...this.blanks, line].join('\n') + (newline ? '\n' : ''));
    this.blanks = [];
  }
}
