import { type Html, html } from './html.js';

/** A table's head: one row of column headers (`scope="col"`), in order. */
export const columnHeads = (columns: ReadonlyArray<Html | string>): Html =>
  html`<thead>
    <tr>
      ${columns.map((column) => html`<th scope="col">${column}</th> `)}
    </tr>
  </thead>`;
