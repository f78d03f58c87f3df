/* SPDX-FileCopyrightText: 2026 The hugepagesd authors */
/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include "config.h"

#include "hpd-log-limit.h"

typedef struct {
  double tokens;
  gint64 last_us;
  guint64 held;
} Bucket;

struct _HpdLogLimit
{
  double per_second;
  double burst;
  double total_per_second;
  double total_burst;
  guint max_uids;
  Bucket total;
  Bucket others;       /* HPD_LOG_LIMIT_OTHERS */
  GHashTable *by_uid;  /* uid -> Bucket */
};

HpdLogLimit *
hpd_log_limit_new (double per_second, guint burst, double total_per_second, guint total_burst,
                   guint max_uids)
{
  HpdLogLimit *self;

  g_return_val_if_fail (per_second > 0 && burst > 0 && total_per_second > 0 && total_burst > 0,
                        NULL);
  self = g_new0 (HpdLogLimit, 1);
  self->per_second = per_second;
  self->burst = burst;
  self->total_per_second = total_per_second;
  self->total_burst = total_burst;
  self->max_uids = max_uids;
  self->total.tokens = total_burst;
  self->others.tokens = burst;
  self->by_uid = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  return self;
}

void
hpd_log_limit_free (HpdLogLimit *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->by_uid);
  g_free (self);
}

/* Tokens come back at @rate a second up to @cap; a clock that went back
 * gives none. */
static void
refill (Bucket *bucket, double rate, double cap, gint64 now_us)
{
  if (bucket->last_us != 0 && now_us > bucket->last_us)
    bucket->tokens = MIN (cap, bucket->tokens +
                          rate * (double) (now_us - bucket->last_us) / G_USEC_PER_SEC);
  if (now_us > bucket->last_us)
    bucket->last_us = now_us;
}

static Bucket *
bucket_of (HpdLogLimit *self, guint32 uid, gint64 now_us)
{
  Bucket *bucket;

  if (uid == HPD_LOG_LIMIT_OTHERS)
    return &self->others;
  bucket = g_hash_table_lookup (self->by_uid, GUINT_TO_POINTER (uid));
  if (bucket != NULL)
    return bucket;
  if (g_hash_table_size (self->by_uid) >= self->max_uids)
    return &self->others;
  bucket = g_new0 (Bucket, 1);
  bucket->tokens = self->burst;
  bucket->last_us = now_us;
  g_hash_table_insert (self->by_uid, GUINT_TO_POINTER (uid), bucket);
  return bucket;
}

gboolean
hpd_log_limit_allow (HpdLogLimit *self, guint32 uid, gint64 now_us)
{
  Bucket *bucket = bucket_of (self, uid, now_us);

  refill (bucket, self->per_second, self->burst, now_us);
  refill (&self->total, self->total_per_second, self->total_burst, now_us);
  if (bucket->tokens < 1 || self->total.tokens < 1)
    {
      bucket->held++;
      return FALSE;
    }
  bucket->tokens--;
  self->total.tokens--;
  return TRUE;
}

gboolean
hpd_log_limit_has_held (HpdLogLimit *self)
{
  GHashTableIter iter;
  Bucket *bucket;

  if (self->others.held > 0)
    return TRUE;
  g_hash_table_iter_init (&iter, self->by_uid);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &bucket))
    if (bucket->held > 0)
      return TRUE;
  return FALSE;
}

static gint
compare_uid (gconstpointer a, gconstpointer b)
{
  const HpdLogHeld *x = a, *y = b;

  return x->uid < y->uid ? -1 : x->uid > y->uid;
}

GArray *
hpd_log_limit_flush (HpdLogLimit *self, gint64 now_us)
{
  GArray *held = g_array_new (FALSE, FALSE, sizeof (HpdLogHeld));
  GHashTableIter iter;
  gpointer key;
  Bucket *bucket;

  g_hash_table_iter_init (&iter, self->by_uid);
  while (g_hash_table_iter_next (&iter, &key, (gpointer *) &bucket))
    {
      if (bucket->held > 0)
        {
          HpdLogHeld entry = { GPOINTER_TO_UINT (key), bucket->held };

          g_array_append_val (held, entry);
          bucket->held = 0;
        }
      refill (bucket, self->per_second, self->burst, now_us);
      if (bucket->tokens >= self->burst)
        g_hash_table_iter_remove (&iter);
    }
  g_array_sort (held, compare_uid);
  if (self->others.held > 0)
    {
      HpdLogHeld entry = { HPD_LOG_LIMIT_OTHERS, self->others.held };

      g_array_append_val (held, entry);
      self->others.held = 0;
    }
  return held;
}

guint
hpd_log_limit_uids (HpdLogLimit *self)
{
  return g_hash_table_size (self->by_uid);
}
