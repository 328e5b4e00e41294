// Object bytes on disk, laid out as storage-api's file backend lays them out:
// <dataDir>/storage/<bucket>/<key>/<version>. A new version is streamed to a file under
// <dataDir>/storage-uploads, flushed, then renamed into place, so a crash never leaves half a file
// where a row points; the row that makes a version visible is written after the rename.
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, type ReadStream } from 'node:fs';
import { copyFile, mkdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { errors, StorageError } from './errors.ts';

export interface Written {
  tmp: string;
  size: number;
  /** storage-api's file backend ETag: the quoted MD5 of the bytes. */
  eTag: string;
}

/**
 * A key segment as a directory name. Keys may hold '.', '..' and empty segments (S3 keeps them, so
 * hosted does); '%' can't occur in a valid key or bucket name, so escaping those with it is unambiguous
 * and no key can name a path outside its bucket.
 */
/** A file system failure (a full disk: ENOSPC) as storage-api's file backend reports it: 500 with Node's words. */
const asStorageError = (err: unknown) =>
  err instanceof StorageError || !(err instanceof Error) ? err : errors.backend(err);

const segment = (s: string) => (s === '' ? '%' : s === '.' ? '%2E' : s === '..' ? '%2E%2E' : s);

export class FileStore {
  readonly root: string;
  private readonly uploads: string;

  constructor(dataDir: string) {
    this.root = path.join(dataDir, 'storage');
    this.uploads = path.join(dataDir, 'storage-uploads');
  }

  /** Creates the dirs and drops what a crashed upload left behind. */
  async init() {
    await rm(this.uploads, { recursive: true, force: true });
    await mkdir(this.uploads, { recursive: true });
    await mkdir(this.root, { recursive: true });
  }

  bucketDir(bucket: string) {
    return path.join(this.root, segment(bucket));
  }

  file(bucket: string, key: string, version: string) {
    return path.join(this.bucketDir(bucket), ...key.split('/').map(segment), version);
  }

  /**
   * Streams `source` to a new temporary file, hashing as it goes; more than `limit` bytes aborts with
   * storage-api's EntityTooLarge and removes the file. Memory stays at a few stream buffers.
   */
  async write(source: Readable, limit: number): Promise<Written> {
    const tmp = path.join(this.uploads, randomUUID());
    const md5 = createHash('md5');
    let size = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        size += chunk.length;
        if (size > limit) return done(errors.entityTooLarge());
        md5.update(chunk);
        done(null, chunk);
      },
    });
    // The source is piped, not part of the pipeline: a refused upload must leave the request
    // readable, so its rest can be drained and the client gets storage-api's error, not a reset.
    const onError = (err: Error) => meter.destroy(err);
    const onClose = () => {
      if (!source.readableEnded) meter.destroy(new Error('Request stream closed before upload could complete'));
    };
    source.on('error', onError);
    source.on('close', onClose);
    source.pipe(meter);
    try {
      await pipeline(meter, createWriteStream(tmp, { flush: true }));
    } catch (err) {
      source.unpipe(meter);
      await rm(tmp, { force: true });
      throw asStorageError(err);
    } finally {
      source.off('error', onError);
      source.off('close', onClose);
    }
    return { tmp, size, eTag: `"${md5.digest('hex')}"` };
  }

  /** Moves a written file into place as `version` of the object. */
  async commit(tmp: string, bucket: string, key: string, version: string): Promise<void> {
    const target = this.file(bucket, key, version);
    try {
      await mkdir(path.dirname(target), { recursive: true });
      await rename(tmp, target);
    } catch (err) {
      await rm(tmp, { force: true });
      if ((err as NodeJS.ErrnoException).code === 'ENAMETOOLONG') throw errors.invalidKey(key);
      throw asStorageError(err);
    }
  }

  async discard(tmp: string) {
    await rm(tmp, { force: true });
  }

  /** Copies a version to a new temporary file (then `commit` it), so a copy is as atomic as an upload. */
  async copyToTmp(bucket: string, key: string, version: string): Promise<string> {
    const tmp = path.join(this.uploads, randomUUID());
    try {
      await copyFile(this.file(bucket, key, version), tmp);
    } catch (err) {
      await rm(tmp, { force: true });
      throw asStorageError(err);
    }
    return tmp;
  }

  /** Size and mtime of a version, or undefined when its file is missing. */
  async stat(bucket: string, key: string, version: string) {
    try {
      const s = await stat(this.file(bucket, key, version));
      return { size: s.size, mtime: s.mtime };
    } catch {
      return undefined;
    }
  }

  read(bucket: string, key: string, version: string, range?: { start: number; end: number }): ReadStream {
    return createReadStream(this.file(bucket, key, version), range);
  }

  /** Removes a version and the directories it leaves empty, up to its bucket's. */
  async remove(bucket: string, key: string, version: string | null | undefined) {
    if (!version) return;
    const file = this.file(bucket, key, version);
    await rm(file, { force: true });
    const stop = this.bucketDir(bucket);
    for (let dir = path.dirname(file); dir.startsWith(`${stop}${path.sep}`); dir = path.dirname(dir)) {
      try {
        await rmdir(dir);
      } catch {
        break; // not empty (another version or key below it), or gone already
      }
    }
  }

  async removeBucket(bucket: string) {
    await rm(this.bucketDir(bucket), { recursive: true, force: true });
  }
}
