/* Writes an uncompressed 8-bit video for Rodinia's heartwall (which reads data/heartwall/test.avi,
 * an ultrasound recording of 609x590 pixels, with the suite's avilib): FRAMES frames of smooth
 * patterns that move a little from frame to frame, plus a fixed pseudo-random texture, so that
 * the program's template matching has something to follow. Built with avilib.c from the
 * checkout: cc heartwall_video.c <checkout>/cuda/heartwall/AVI/avilib.c -I<...>/AVI -lm.
 *
 *   heartwall_video OUT.avi FRAMES */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "avilib.h"

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s OUT.avi FRAMES\n", argv[0]);
        return 2;
    }
    const int width = 609, height = 590, frames = atoi(argv[2]);
    avi_t *avi = AVI_open_output_file(argv[1]);
    if (avi == NULL || frames <= 0) {
        fprintf(stderr, "cannot write %s\n", argv[1]);
        return 1;
    }
    AVI_set_video(avi, width, height, 25.0, (char *)"");
    char *frame = malloc((size_t)width * height);
    unsigned int state = 31;
    unsigned char *texture = malloc((size_t)width * height);
    for (int i = 0; i < width * height; i++) {
        state = state * 1103515245u + 12345u;
        texture[i] = (unsigned char)((state >> 16) % 48);
    }
    for (int f = 0; f < frames; f++) {
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                double v = 100.0 + 50.0 * sin((x + 3.0 * f) / 23.0) * cos((y - 2.0 * f) / 31.0) +
                           30.0 * sin((x + y) / 57.0);
                frame[y * width + x] = (char)(unsigned char)(v + texture[y * width + x]);
            }
        }
        if (AVI_write_frame(avi, frame, (long)width * height, 1) != 0) {
            fprintf(stderr, "cannot write frame %d\n", f);
            return 1;
        }
    }
    AVI_close(avi);
    free(frame);
    free(texture);
    return 0;
}
