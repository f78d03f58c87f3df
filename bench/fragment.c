/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* fragment: fragments physical memory reproducibly, then holds it.
 *
 *   fragment FILE FILE_MIB ANON_MIB PIPE_MIB DIR NFILES SEED
 *
 * FILE must be at least FILE_MIB MiB long, on a disk file system (bench/run
 * writes it once). DIR must be on tmpfs. The program
 *   1. drops FILE from the page cache, so every run starts from the same
 *      state whatever the previous one left;
 *   2. fills memory in small steps, alternating four kinds, so that
 *      consecutive physical pages belong to all of them:
 *      - anonymous memory (touched, transparent huge pages refused):
 *        movable, but not reclaimable without swap;
 *      - page cache (a read of the next piece of FILE): movable and
 *        reclaimable;
 *      - pipe buffers (a pipe filled with 64 KiB whose writing end is then
 *        closed): kernel pages allocated without __GFP_MOVABLE, which
 *        compaction can neither move nor reclaim;
 *      - empty files created in DIR: their tmpfs inodes and dentries are
 *        slab objects that stay while the file exists, unmovable as well;
 *   3. gives back, chosen by SEED: three anonymous pages in four
 *      (MADV_DONTNEED), one page-cache piece in two (POSIX_FADV_DONTNEED),
 *      one pipe in two (closed) and one file in two (unlinked), which leaves
 *      free holes all over the blocks while most blocks keep used pages, and
 *      the unmovable kinds' blocks keep theirs for good;
 *   4. prints "ready KEY=VALUE..." on stdout and waits until stdin closes
 *      (or SIGTERM), then drops FILE from the cache again, unlinks its
 *      files and exits, which frees the rest.
 * It dies with its parent (PR_SET_PDEATHSIG), so an interrupted benchmark
 * never leaves it behind (bench/run unlinks DIR's files then). */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#define PAGE 4096u
#define STEP (64u * 1024u)        /* bytes of each kind per fill step */
#define PIPE_BYTES STEP           /* what one pipe holds (16 pages, the default) */

static uint64_t
next_random (uint64_t *state)
{
  /* xorshift64*: small, fast and the same everywhere */
  uint64_t x = *state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  return x * 0x2545F4914F6CDD1DULL;
}

static int
parse_u64 (const char *text, uint64_t *out)
{
  char *end = NULL;
  errno = 0;
  unsigned long long v = strtoull (text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || text[0] == '-')
    return -1;
  *out = v;
  return 0;
}

static volatile sig_atomic_t stop_requested;

static void
on_term (int signum)
{
  (void) signum;
  stop_requested = 1;
}

int
main (int argc, char **argv)
{
  uint64_t file_mib, anon_mib, pipe_mib, nfiles, seed;
  if (argc != 8 || parse_u64 (argv[2], &file_mib) || parse_u64 (argv[3], &anon_mib)
      || parse_u64 (argv[4], &pipe_mib) || parse_u64 (argv[6], &nfiles)
      || parse_u64 (argv[7], &seed))
    {
      fprintf (stderr, "usage: %s FILE FILE_MIB ANON_MIB PIPE_MIB DIR NFILES SEED\n", argv[0]);
      return 2;
    }
  const char *dir = argv[5];
  prctl (PR_SET_PDEATHSIG, SIGKILL);
  struct sigaction sa = { .sa_handler = on_term };
  sigaction (SIGTERM, &sa, NULL);
  sigaction (SIGINT, &sa, NULL);

  int fd = open (argv[1], O_RDONLY);
  if (fd < 0)
    {
      perror (argv[1]);
      return 1;
    }
  uint64_t file_bytes = file_mib << 20;
  uint64_t anon_bytes = anon_mib << 20;
  if (lseek (fd, 0, SEEK_END) < (off_t) file_bytes)
    {
      fprintf (stderr, "%s is shorter than %" PRIu64 " MiB\n", argv[1], file_mib);
      return 1;
    }
  posix_fadvise (fd, 0, 0, POSIX_FADV_DONTNEED);

  char *anon = NULL;
  if (anon_bytes > 0)
    {
      anon = mmap (NULL, anon_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (anon == MAP_FAILED)
        {
          perror ("mmap");
          return 1;
        }
      /* 4 KiB pages only: a THP would take a whole 2 MiB block at once */
      madvise (anon, anon_bytes, MADV_NOHUGEPAGE);
    }

  /* the pipes' reading ends are what keeps their pages */
  uint64_t npipes = (pipe_mib << 20) / PIPE_BYTES;
  int *pipes = calloc (npipes ? npipes : 1, sizeof *pipes);
  char *kept_file = calloc (nfiles ? nfiles : 1, 1);
  if (pipes == NULL || kept_file == NULL)
    {
      perror ("calloc");
      return 1;
    }
  struct rlimit nofile = { npipes + 64, npipes + 64 };
  if (npipes > 0 && setrlimit (RLIMIT_NOFILE, &nofile) != 0)
    {
      perror ("setrlimit(RLIMIT_NOFILE)");
      return 1;
    }

  static char buffer[STEP];
  uint64_t state = seed ? seed : 1;
  uint64_t anon_done = 0, file_done = 0, pipes_done = 0, files_done = 0;
  uint64_t steps = (anon_bytes > file_bytes ? anon_bytes : file_bytes) / STEP + 1;
  uint64_t step = 0;
  while (anon_done < anon_bytes || file_done < file_bytes || pipes_done < npipes
         || files_done < nfiles)
    {
      step++;
      /* the unmovable kinds spread evenly over the steps of the fill */
      while (pipes_done < npipes && pipes_done * steps < npipes * step)
        {
          int fds[2];
          if (pipe (fds) != 0)
            {
              perror ("pipe");
              return 1;
            }
          for (uint64_t off = 0; off < PIPE_BYTES; off += PAGE)
            buffer[off] = (char) next_random (&state);
          if (write (fds[1], buffer, PIPE_BYTES) != (ssize_t) PIPE_BYTES)
            {
              perror ("write to a pipe");
              return 1;
            }
          close (fds[1]);
          pipes[pipes_done++] = fds[0];
        }
      while (files_done < nfiles && files_done * steps < nfiles * step)
        {
          char name[4096];
          snprintf (name, sizeof name, "%s/f%" PRIu64, dir, files_done);
          int f = open (name, O_CREAT | O_WRONLY | O_EXCL | O_CLOEXEC, 0600);
          if (f < 0)
            {
              perror (name);
              return 1;
            }
          close (f);
          kept_file[files_done++] = 1;
        }
      if (anon_done < anon_bytes)
        {
          uint64_t n = anon_bytes - anon_done < STEP ? anon_bytes - anon_done : STEP;
          for (uint64_t off = 0; off < n; off += PAGE)
            anon[anon_done + off] = (char) next_random (&state);
          anon_done += n;
        }
      if (file_done < file_bytes)
        {
          uint64_t n = file_bytes - file_done < STEP ? file_bytes - file_done : STEP;
          ssize_t got = pread (fd, buffer, n, (off_t) file_done);
          if (got <= 0)
            {
              perror ("pread");
              return 1;
            }
          file_done += (uint64_t) got;
        }
    }

  uint64_t anon_kept = 0, file_kept = 0;
  for (uint64_t off = 0; off < anon_bytes; off += PAGE)
    {
      if (next_random (&state) % 4 != 0)
        madvise (anon + off, PAGE, MADV_DONTNEED);
      else
        anon_kept += PAGE;
    }
  for (uint64_t off = 0; off < file_bytes; off += STEP)
    {
      uint64_t n = file_bytes - off < STEP ? file_bytes - off : STEP;
      if (next_random (&state) % 2 != 0)
        posix_fadvise (fd, (off_t) off, (off_t) n, POSIX_FADV_DONTNEED);
      else
        file_kept += n;
    }

  uint64_t pipes_kept = 0, files_kept = 0;
  for (uint64_t i = 0; i < npipes; i++)
    {
      if (next_random (&state) % 2 != 0)
        {
          close (pipes[i]);
          pipes[i] = -1;
        }
      else
        pipes_kept++;
    }
  for (uint64_t i = 0; i < nfiles; i++)
    {
      if (next_random (&state) % 2 != 0)
        {
          char name[4096];
          snprintf (name, sizeof name, "%s/f%" PRIu64, dir, i);
          unlink (name);
          kept_file[i] = 0;
        }
      else
        files_kept++;
    }

  printf ("ready anon_kept_kib=%" PRIu64 " file_kept_kib=%" PRIu64 " pipe_kept_kib=%" PRIu64
          " files_kept=%" PRIu64 "\n", anon_kept >> 10, file_kept >> 10,
          (pipes_kept * PIPE_BYTES) >> 10, files_kept);
  fflush (stdout);

  while (!stop_requested)
    {
      ssize_t got = read (STDIN_FILENO, buffer, sizeof buffer);
      if (got == 0 || (got < 0 && errno != EINTR))
        break;
    }
  posix_fadvise (fd, 0, 0, POSIX_FADV_DONTNEED);
  close (fd);
  for (uint64_t i = 0; i < nfiles; i++)
    if (kept_file[i])
      {
        char name[4096];
        snprintf (name, sizeof name, "%s/f%" PRIu64, dir, i);
        unlink (name);
      }
  return 0;
}
