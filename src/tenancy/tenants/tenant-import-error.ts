/** A tenant-import/1 document (or archive) that cannot be imported; the message names the place. */
export class ImportError extends Error {}

/** An archive past one of the ARCHIVE_IMPORT_MAX_* limits: refused with 413, nothing left behind. */
export class ImportTooLargeError extends ImportError {}
