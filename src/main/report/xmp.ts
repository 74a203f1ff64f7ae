/**
 * The report's XMP metadata for PDF/A-3b (ISO 19005-3 §6.6): the document information
 * dictionary's entries repeated in XMP with equivalent values (title, author, subject,
 * keywords, producer, creator tool, creation and modification dates), the audit id as
 * dc:identifier (a predefined schema, so no extension schema is needed), and pdfaid
 * part/conformance (written by PDFKit's PDF/A subset). PDFKit's own writer inserts the
 * values unescaped and omits xmp:ModifyDate; this replaces it on the document.
 */
export interface XmpInfo {
  title: string;
  author: string;
  subject: string;
  keywords: string;
  producer: string;
  creatorTool: string;
  created: Date;
  modified: Date;
  identifier: string;
  lang: string;
  /** Asked when the metadata is written (at the document's end): whether to declare PDF/UA-1 (pdfuaid:part). */
  pdfua?: () => boolean;
}

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
/** XMP dates to the second, as PDFKit writes the information dictionary's (D:YYYYMMDDHHmmSSZ). */
const date = (d: Date): string => `${d.toISOString().split('.')[0]!}Z`;

export function xmpDescriptions(i: XmpInfo): string {
  return `
<rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/">
  <xmp:CreateDate>${date(i.created)}</xmp:CreateDate>
  <xmp:ModifyDate>${date(i.modified)}</xmp:ModifyDate>
  <xmp:MetadataDate>${date(i.modified)}</xmp:MetadataDate>
  <xmp:CreatorTool>${esc(i.creatorTool)}</xmp:CreatorTool>
</rdf:Description>
<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">
  <dc:format>application/pdf</dc:format>
  <dc:title><rdf:Alt><rdf:li xml:lang="x-default">${esc(i.title)}</rdf:li></rdf:Alt></dc:title>
  <dc:creator><rdf:Seq><rdf:li>${esc(i.author)}</rdf:li></rdf:Seq></dc:creator>
  <dc:description><rdf:Alt><rdf:li xml:lang="x-default">${esc(i.subject)}</rdf:li></rdf:Alt></dc:description>
  <dc:identifier>${esc(i.identifier)}</dc:identifier>
  <dc:language><rdf:Bag><rdf:li>${esc(i.lang)}</rdf:li></rdf:Bag></dc:language>
</rdf:Description>
<rdf:Description rdf:about="" xmlns:pdf="http://ns.adobe.com/pdf/1.3/">
  <pdf:Producer>${esc(i.producer)}</pdf:Producer>
  <pdf:Keywords>${esc(i.keywords)}</pdf:Keywords>
</rdf:Description>${i.pdfua?.() ? PDFUA_ID : ''}`;
}

/**
 * pdfuaid:part 1, with the extension schema PDF/A-3 (ISO 19005-3 §6.6.2.3) wants for a
 * namespace it does not predefine.
 */
const PDFUA_ID = `
<rdf:Description rdf:about="" xmlns:pdfuaid="http://www.aiim.org/pdfua/ns/id/">
  <pdfuaid:part>1</pdfuaid:part>
</rdf:Description>
<rdf:Description rdf:about="" xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/" xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#" xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#">
  <pdfaExtension:schemas>
    <rdf:Bag>
      <rdf:li rdf:parseType="Resource">
        <pdfaSchema:schema>PDF/UA Universal Accessibility Schema</pdfaSchema:schema>
        <pdfaSchema:namespaceURI>http://www.aiim.org/pdfua/ns/id/</pdfaSchema:namespaceURI>
        <pdfaSchema:prefix>pdfuaid</pdfaSchema:prefix>
        <pdfaSchema:property>
          <rdf:Seq>
            <rdf:li rdf:parseType="Resource">
              <pdfaProperty:name>part</pdfaProperty:name>
              <pdfaProperty:valueType>Integer</pdfaProperty:valueType>
              <pdfaProperty:category>internal</pdfaProperty:category>
              <pdfaProperty:description>Part of ISO 14289 the document conforms to</pdfaProperty:description>
            </rdf:li>
          </rdf:Seq>
        </pdfaSchema:property>
      </rdf:li>
    </rdf:Bag>
  </pdfaExtension:schemas>
</rdf:Description>`;

/** PDFKit's metadata hook (called once at end(), before the PDF/A identification is appended). */
type WithInfoHook = PDFKit.PDFDocument & { _addInfo: () => void; appendXML: (xml: string, newline?: boolean) => void };

export function useXmp(doc: PDFKit.PDFDocument, info: XmpInfo): void {
  const d = doc as WithInfoHook;
  if (typeof d._addInfo !== 'function' || typeof d.appendXML !== 'function') throw new Error('this PDFKit has no metadata hook (_addInfo); the report needs PDFKit 0.20');
  d._addInfo = () => d.appendXML(xmpDescriptions(info));
}
