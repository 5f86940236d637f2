/** The documents a stored invoice can be rendered as. */
export type DocumentFormat = 'pdf' | 'xrechnung-ubl' | 'xrechnung-cii' | 'peppol';
export const DOCUMENT_FORMATS: readonly DocumentFormat[] = ['pdf', 'xrechnung-ubl', 'xrechnung-cii', 'peppol'];
