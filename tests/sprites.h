/* SPDX-License-Identifier: MIT */
/* Random sprites for the overlay tests (test_cpu, test_gpu): every kind,
 * 1 to 40 pixels a side, placed over a w x h frame so that some clip on
 * each side, some lie wholly outside and many overlap; alpha (and a mask's
 * coverage and colour alpha) 0 or 255 a quarter of the time each. The
 * images are host images the caller frees (gm_free). 0 on a failed
 * allocation. */
static int random_sprites(gm_sprite* s, int n, int64_t w, int64_t h)
{
    int i, k;
    for (i = 0; i < n; ++i) {
        /* some wider than the CPU path's runs of 128 pixels where the frame is */
        int64_t sw = 1 + (int64_t)(t_rand() % (uint64_t)(40 + w / 2)), sh = 1 + (int64_t)(t_rand() % 40), y, x;
        memset(&s[i], 0, sizeof s[i]);
        s[i].kind = (gm_sprite_kind)(t_rand() % 3);
        if (gm_alloc_host(&s[i].image, sw, sh, GM_U8, s[i].kind == GM_SPRITE_MASK ? 1 : 4, GM_HWC, 0) != GM_OK)
            return 0;
        for (y = 0; y < sh; ++y)
            for (x = 0; x < sw * s[i].image.channels; ++x) {
                unsigned char* p = (unsigned char*)s[i].image.data + y * s[i].image.pitch + x;
                int alpha = s[i].kind == GM_SPRITE_MASK || x % 4 == 3;
                uint64_t r = t_rand();
                *p = (unsigned char)(alpha && r % 4 == 0 ? 0 : alpha && r % 4 == 1 ? 255 : r >> 8);
            }
        for (k = 0; k < 4; ++k)
            s[i].color[k] = (unsigned char)(t_rand() >> 8);
        s[i].color[3] = t_rand() % 4 == 0 ? 255 : s[i].color[3];
        s[i].x = -sw - 1 + (int64_t)(t_rand() % (uint64_t)(w + sw + 3));
        s[i].y = -sh - 1 + (int64_t)(t_rand() % (uint64_t)(h + sh + 3));
    }
    return 1;
}
