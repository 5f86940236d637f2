/*
 * Lines of the contract's YAML: a change knows where it is as a JSON pointer (diff.ts); the
 * `yaml` package keeps each node's source range, so the pointer becomes the line of its key.
 */
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { segmentsOf } from './diff.js';

export interface SourceLine {
  /** 1-based. */
  line: number;
  /** False when the pointer's last segments are not in the file: the line is its nearest ancestor's. */
  exact: boolean;
}

export class SourceMap {
  private readonly document: Document.Parsed;
  private readonly counter = new LineCounter();

  constructor(text: string) {
    this.document = parseDocument(text, { lineCounter: this.counter, uniqueKeys: false });
  }

  /** The parsed value (the same as `parse(text)`). */
  toJS(): unknown {
    return this.document.toJS({ maxAliasCount: -1 });
  }

  private lineOf(offset: number | undefined): number {
    return offset === undefined ? 1 : this.counter.linePos(offset).line;
  }

  /** The line a pointer names (the line of its key, or of its item in a list). */
  line(pointer: string): SourceLine {
    let node: unknown = this.document.contents;
    let line = 1;
    for (const segment of segmentsOf(pointer)) {
      if (isAlias(node)) node = node.resolve(this.document);
      if (isMap(node)) {
        const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === segment);
        if (!pair) return { line, exact: false };
        line = this.lineOf((pair.key as Node).range?.[0]);
        node = pair.value;
      } else if (isSeq(node)) {
        const item = node.items[Number(segment)] as Node | undefined;
        if (!item || !/^\d+$/.test(segment)) return { line, exact: false };
        line = this.lineOf(item.range?.[0]);
        node = item;
      } else {
        return { line, exact: false };
      }
    }
    return { line, exact: true };
  }
}
