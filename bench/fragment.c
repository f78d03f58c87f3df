/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

/* fragment: fragments physical memory reproducibly, then holds it.
 *
 *   fragment FILE FILE_MIB ANON_MIB SEED
 *
 * FILE must be at least FILE_MIB MiB long, on a disk file system (bench/run
 * writes it once). The program
 *   1. drops FILE from the page cache, so every run starts from the same
 *      state whatever the previous one left;
 *   2. fills memory in small steps, alternating anonymous memory (touched,
 *      transparent huge pages refused) and page cache (a read of the next
 *      piece of FILE), so that consecutive physical pages belong to both
 *      kinds and almost every 2 MiB block holds some of each;
 *   3. gives back, chosen by SEED: three anonymous pages in four
 *      (MADV_DONTNEED) and one page-cache piece in two (POSIX_FADV_DONTNEED),
 *      which leaves free 4 KiB holes all over those blocks while every block
 *      keeps used pages;
 *   4. prints "ready KEY=VALUE..." on stdout and waits until stdin closes
 *      (or SIGTERM), then drops FILE from the cache again and exits, which
 *      frees the anonymous memory.
 * It dies with its parent (PR_SET_PDEATHSIG), so an interrupted benchmark
 * never leaves it behind. */

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
#include <unistd.h>

#define PAGE 4096u
#define STEP (64u * 1024u)        /* bytes of each kind per fill step */

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
  uint64_t file_mib, anon_mib, seed;
  if (argc != 5 || parse_u64 (argv[2], &file_mib) || parse_u64 (argv[3], &anon_mib)
      || parse_u64 (argv[4], &seed))
    {
      fprintf (stderr, "usage: %s FILE FILE_MIB ANON_MIB SEED\n", argv[0]);
      return 2;
    }
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

  static char buffer[STEP];
  uint64_t state = seed ? seed : 1;
  uint64_t anon_done = 0, file_done = 0;
  while (anon_done < anon_bytes || file_done < file_bytes)
    {
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

  printf ("ready anon_kept_kib=%" PRIu64 " file_kept_kib=%" PRIu64 "\n", anon_kept >> 10,
          file_kept >> 10);
  fflush (stdout);

  while (!stop_requested)
    {
      ssize_t got = read (STDIN_FILENO, buffer, sizeof buffer);
      if (got == 0 || (got < 0 && errno != EINTR))
        break;
    }
  posix_fadvise (fd, 0, 0, POSIX_FADV_DONTNEED);
  close (fd);
  return 0;
}
