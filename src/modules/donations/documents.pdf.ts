import type PDFKit from 'pdfkit';

// Loaded on the first document: the PDF library and its fonts are megabytes every process would hold.
let pdfkit: Promise<typeof PDFKit> | undefined;

export interface DocumentContent {
  kind: 'RECEIPT' | 'CERTIFICATE';
  number: string;
  code: string;
  issuedAt: Date;
  donatedAt: Date;
  donor: string;
  association: { name: string; registrationNumber: string | null; city: string | null };
  amount: { value: number; currency: string } | null;
  items: { name: string; quantity: number; weightGrams: number }[];
  weightKg: number | null;
  verifyUrl: string;
}

const day = (d: Date) => d.toISOString().slice(0, 10);

/**
 * Renders a receipt or certificate. The dates written in the file (and its creation date) are the
 * document's own, so the same content gives the same bytes; the file is made once and stored anyway.
 */
export async function renderDocument(c: DocumentContent): Promise<Buffer> {
  const PDFDocument = await (pdfkit ??= import('pdfkit').then((m) => m.default));
  const doc = new PDFDocument({
    size: 'A4',
    margin: 56,
    info: {
      Title: `${c.kind === 'RECEIPT' ? 'Reçu de don' : 'Certificat de don'} ${c.number}`,
      Producer: 'Donations',
      Creator: 'Donations',
      CreationDate: c.issuedAt,
    },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (b: Buffer) => chunks.push(b));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  doc.fontSize(20).text(c.kind === 'RECEIPT' ? 'Reçu de don' : 'Certificat de don alimentaire');
  doc.moveDown(0.5).fontSize(12).text(`N° ${c.number}`);
  doc.text(`Émis le ${day(c.issuedAt)}`);
  doc.moveDown();
  doc.text(`Donateur : ${c.donor}`);
  doc.text(`Association : ${c.association.name}`);
  if (c.association.registrationNumber) doc.text(`Enregistrement : ${c.association.registrationNumber}`);
  if (c.association.city) doc.text(`Ville : ${c.association.city}`);
  doc.text(`Date du don : ${day(c.donatedAt)}`);
  doc.moveDown();
  if (c.amount) doc.fontSize(14).text(`Montant : ${c.amount.value} ${c.amount.currency}`).fontSize(12);
  if (c.items.length) {
    doc.text('Denrées :');
    for (const i of c.items) doc.text(`  - ${i.name} x ${i.quantity} (${i.weightGrams / 1000} kg)`);
    doc.fontSize(14).text(`Poids total : ${c.weightKg} kg`).fontSize(12);
  }
  doc.moveDown();
  doc.text(`Code de vérification : ${c.code}`);
  doc.fontSize(10).text(`Vérifier ce document : ${c.verifyUrl}`);
  doc.end();
  return done;
}
