import { Box } from '@mui/material';
import { useTranslate } from 'react-admin';

/** A picture of the row (or a labelled empty box): `alt` says what it shows, for screen readers. */
export function Picture({
  url,
  alt,
  size = 64,
  wide = false,
}: {
  url: string | null | undefined;
  alt: string;
  size?: number;
  wide?: boolean;
}) {
  const translate = useTranslate();
  if (!url) {
    return (
      <Box
        sx={{
          width: size,
          height: size,
          display: 'grid',
          placeItems: 'center',
          bgcolor: 'action.hover',
          color: 'text.secondary',
          fontSize: 12,
          borderRadius: 1,
          textAlign: 'center',
        }}
      >
        {translate('console.moderation.noPicture')}
      </Box>
    );
  }
  return (
    <Box
      component="img"
      src={url}
      alt={alt}
      loading="lazy"
      // A banner keeps its shape (what the public will see); other pictures are cropped to a square.
      sx={{
        width: size,
        height: wide ? 'auto' : size,
        maxHeight: size,
        objectFit: wide ? 'contain' : 'cover',
        borderRadius: 1,
        display: 'block',
        bgcolor: 'action.hover',
      }}
    />
  );
}

/** Every picture of a record, large enough to judge (the expanded row). */
export function Pictures({ urls, alt }: { urls: string[]; alt: (n: number) => string }) {
  if (!urls.length) return null;
  return (
    <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap' }}>
      {urls.map((url, n) => (
        <Picture key={url} url={url} alt={alt(n + 1)} size={160} />
      ))}
    </Box>
  );
}
