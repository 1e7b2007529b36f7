import { readFileSync } from 'node:fs';
import PDFDocument from 'pdfkit';
import QRCode from 'qrcode';

/** What the certificate states (already checked and issued by CertificateIssueFlow). */
export interface CertificateText {
  name: string;
  competence: string;
  date: string | null;
  validUntil: string | null;
  issuer: string;
  code: string;
  url: string;
}

// DejaVu Sans covers Latin, Greek and Cyrillic names (the PDF's 14 standard fonts stop at Latin-1); read once, subset per PDF.
const font = (file: string) => readFileSync(require.resolve(`dejavu-fonts-ttf/ttf/${file}`));
const FONTS = { regular: font('DejaVuSans.ttf'), bold: font('DejaVuSans-Bold.ttf') };

/** The QR code of `url` as filled squares (vector: sharp at any zoom), `size` points wide, at (x, y). */
function drawQr(doc: PDFKit.PDFDocument, url: string, x: number, y: number, size: number): void {
  const qr = QRCode.create(url, { errorCorrectionLevel: 'M' });
  const n = qr.modules.size;
  const cell = size / n;
  for (let row = 0; row < n; row++) {
    for (let col = 0; col < n; col++) if (qr.modules.get(row, col)) doc.rect(x + col * cell, y + row * cell, cell, cell);
  }
  doc.fillColor('#000000').fill();
}

/**
 * The certificate as an A4 landscape PDF: the person's name, the competence, date and valid until,
 * the issuer (the tenant's name), the verification code and URL and the QR code of that URL.
 * Title, author and language are set for assistive technology; text is real text (searchable).
 */
export function certificatePdf(t: CertificateText): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    layout: 'landscape',
    margin: 56,
    lang: 'en',
    displayTitle: true,
    info: { Title: `Certificate: ${t.competence} (${t.name})`, Author: t.issuer, Subject: `Verification code ${t.code}` },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  doc.registerFont('regular', FONTS.regular);
  doc.registerFont('bold', FONTS.bold);
  const width = doc.page.width - 112;
  doc
    .lineWidth(2)
    .rect(28, 28, doc.page.width - 56, doc.page.height - 56)
    .stroke('#1f4e79');
  doc.font('regular').fontSize(14).fillColor('#1f4e79').text(t.issuer, 56, 70, { width, align: 'center' });
  doc.font('bold').fontSize(34).fillColor('#000000').text('Certificate', { width, align: 'center' });
  doc.moveDown(0.6).font('regular').fontSize(14).text('This certifies that', { width, align: 'center' });
  doc.moveDown(0.3).font('bold').fontSize(26).text(t.name, { width, align: 'center' });
  doc.moveDown(0.3).font('regular').fontSize(14).text('has passed', { width, align: 'center' });
  doc.moveDown(0.3).font('bold').fontSize(22).text(t.competence, { width, align: 'center' });
  doc.moveDown(0.8).font('regular').fontSize(13);
  doc.text(`Date: ${t.date ?? '-'}`, { width, align: 'center' });
  doc.text(`Valid until: ${t.validUntil ?? 'no end date'}`, { width, align: 'center' });
  doc.text(`Issued by: ${t.issuer}`, { width, align: 'center' });
  const qrSize = 110;
  const bottom = doc.page.height - 56 - qrSize;
  drawQr(doc, t.url, 56, bottom, qrSize);
  doc.font('regular').fontSize(10).fillColor('#000000');
  doc.text(`Verification code: ${t.code}`, 56 + qrSize + 16, bottom + 30, { width: width - qrSize - 16 });
  doc.text(`Check this certificate at: ${t.url}`, { width: width - qrSize - 16, link: t.url });
  doc.end();
  return done;
}
