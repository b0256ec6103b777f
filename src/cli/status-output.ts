// What `status` writes, and the dashboard without a terminal (one printer, so the two cannot drift): text names the
// cluster first, kubectl's line and the verdict as they change, the report, the -A table; documents once at the end.
import type {RolloutStatusReport} from '../core/index.js';
import {isDocumentFormat, type OutputFormat} from './flags.js';
import type {StatusListView} from '../output/status-list-text.js';

/** What `status` writes: text names the cluster first, once there is something to show (an error leaves stdout empty). */
export class StatusOutput {
  private headerShown: boolean;
  private shownLines = 0;

  constructor(
    private readonly header: string | undefined,
    private readonly format: OutputFormat,
    private readonly color: boolean,
    /** Where it writes; without a stderr, why a watch ended short goes nowhere. */
    private readonly io: {readonly stdout: NodeJS.WriteStream; readonly stderr?: NodeJS.WritableStream} = {stdout: process.stdout, stderr: process.stderr},
  ) {
    this.headerShown = isDocumentFormat(format) || header === undefined;
  }

  private write(output: string): void {
    if (!this.headerShown) this.io.stdout.write(this.header!);
    this.headerShown = true;
    this.io.stdout.write(output);
  }

  private get width(): number | undefined {
    return this.io.stdout.isTTY ? this.io.stdout.columns : undefined;
  }

  private get text(): boolean {
    return !isDocumentFormat(this.format);
  }

  /** Kubectl's line and the verdict as they change (text only). */
  async progress(): Promise<((report: RolloutStatusReport) => void) | undefined> {
    if (!this.text) return undefined;
    const {renderStatusProgress} = await import('../output/status-text.js');
    return (report) => this.write(renderStatusProgress(report, {color: this.color}));
  }

  async report(report: RolloutStatusReport, options: {watch: boolean; allNodes: boolean}): Promise<void> {
    if (!this.text) return;
    if (options.watch) this.write('\n');
    const {renderStatusText} = await import('../output/status-text.js');
    this.write(
      renderStatusText(report, {
        color: this.color,
        width: this.width,
        allNodes: options.allNodes,
        headline: !options.watch,
      }),
    );
  }

  /** The table, redrawn on every change: in place on a terminal, after a blank line in a pipe (text only). */
  async listRedraw(wide: boolean): Promise<((report: StatusListView) => void) | undefined> {
    if (!this.text) return undefined;
    const render = await this.listRenderer(wide);
    const tty = this.io.stdout.isTTY === true;
    return (report) => {
      const table = render(report);
      if (tty && this.shownLines > 0) this.write(`\u001B[${this.shownLines}F\u001B[J`);
      else if (this.shownLines > 0) this.write('\n');
      this.write(table);
      this.shownLines = table.split('\n').length - 1;
    };
  }

  async list(report: StatusListView, wide: boolean): Promise<void> {
    if (this.text) this.write((await this.listRenderer(wide))(report));
  }

  private async listRenderer(wide: boolean): Promise<(report: StatusListView) => string> {
    const {renderStatusListText} = await import('../output/status-list-text.js');
    return (report) => renderStatusListText(report, {color: this.color, wide, width: this.width});
  }

  /** The document (-o json|yaml|name|jsonpath), and why a watch ended short, on stderr. */
  async finish(document: {readonly kind: string} | undefined, failure: string | undefined): Promise<void> {
    if (document !== undefined && isDocumentFormat(this.format)) {
      this.io.stdout.write(await (await import('../output/document.js')).renderDocument(document, this.format));
    }
    if (failure !== undefined) this.io.stderr?.write(`error: ${failure}\n`);
  }
}
