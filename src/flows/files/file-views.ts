import { inject, injectable } from 'tsyringe';
import { FilesService, type FileRow } from '../../courses';
import { joinPersons } from '../../people';

/** A file's description (GET and POST /files): courses' file row with its owner's user name (people), in one statement. */
@injectable()
export class FileViewsFlow {
  constructor(@inject(FilesService) private readonly files: FilesService) {}

  /** The file (f) joined to its owner (people, p); 404 when missing. */
  find(id: number): Promise<FileRow> {
    return this.files.find<FileRow>(id, joinPersons(this.files.base(), 'p', 'f.person_id').select('p.user_name'));
  }
}
