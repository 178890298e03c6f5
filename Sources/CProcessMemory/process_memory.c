// Names of data symbols (global and static variables, metadata accessors' local symbols): the
// dynamic symbol table first (dladdr1), then the image's full symbol table read from its file,
// since an executable's globals are usually not exported. Each image's table is read once,
// sorted, and kept for the life of the process. Never called from inside malloc.

#define _GNU_SOURCE
#include "CProcessMemory.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

typedef struct {
    uintptr_t start, size;
    const char *name;
} data_symbol;

typedef struct image_symbols {
    uintptr_t base;
    data_symbol *symbols;
    size_t count;
    /// The whole symbol table, for lookups by name (names point into the mapped file).
    const ElfW(Sym) *table;
    size_t table_count;
    const char *strings;
    size_t strings_size;
    uintptr_t bias;
    struct image_symbols *next;
} image_symbols;

static pthread_mutex_t symbols_lock = PTHREAD_MUTEX_INITIALIZER;
static image_symbols *images;

static int by_start(const void *a, const void *b) {
    uintptr_t x = ((const data_symbol *)a)->start, y = ((const data_symbol *)b)->start;
    return x < y ? -1 : x > y;
}

/// Reads the object symbols of the ELF file at `path`, loaded at `base`. The file stays
/// mapped (the names point into it).
static image_symbols *read_image(const char *path, uintptr_t base) {
    image_symbols *image = calloc(1, sizeof(image_symbols));
    if (!image) return NULL;
    image->base = base;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return image;
    struct stat info;
    if (fstat(fd, &info) != 0 || info.st_size < (off_t)sizeof(ElfW(Ehdr))) {
        close(fd);
        return image;
    }
    const unsigned char *file = mmap(NULL, info.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (file == MAP_FAILED) return image;
    const ElfW(Ehdr) *header = (const ElfW(Ehdr) *)file;
    if (memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 ||
        header->e_shoff + (size_t)header->e_shnum * sizeof(ElfW(Shdr)) > (size_t)info.st_size)
        return image;
    const ElfW(Shdr) *sections = (const ElfW(Shdr) *)(file + header->e_shoff);
    uintptr_t bias = header->e_type == ET_DYN ? base : 0;
    for (int index = 0; index < header->e_shnum; index++) {
        const ElfW(Shdr) *table = &sections[index];
        if (table->sh_type != SHT_SYMTAB || table->sh_link >= header->e_shnum) continue;
        const ElfW(Shdr) *strings = &sections[table->sh_link];
        if (table->sh_offset + table->sh_size > (size_t)info.st_size ||
            strings->sh_offset + strings->sh_size > (size_t)info.st_size)
            continue;
        size_t count = table->sh_size / sizeof(ElfW(Sym));
        const ElfW(Sym) *symbols = (const ElfW(Sym) *)(file + table->sh_offset);
        data_symbol *found = malloc(count * sizeof(data_symbol));
        if (!found) continue;
        size_t kept = 0;
        for (size_t symbol = 0; symbol < count; symbol++) {
            const ElfW(Sym) *entry = &symbols[symbol];
            if (ELF64_ST_TYPE(entry->st_info) != STT_OBJECT || entry->st_size == 0 ||
                entry->st_name >= strings->sh_size)
                continue;
            found[kept++] = (data_symbol){entry->st_value + bias, entry->st_size,
                                          (const char *)file + strings->sh_offset + entry->st_name};
        }
        qsort(found, kept, sizeof(data_symbol), by_start);
        image->symbols = found;
        image->count = kept;
        image->table = symbols;
        image->table_count = count;
        image->strings = (const char *)file + strings->sh_offset;
        image->strings_size = strings->sh_size;
        image->bias = bias;
        break;
    }
    return image;
}

static const char *lookup(image_symbols *image, uintptr_t address, uintptr_t *start) {
    size_t low = 0, high = image->count;
    while (low < high) {
        size_t middle = (low + high) / 2;
        if (image->symbols[middle].start <= address) low = middle + 1; else high = middle;
    }
    if (low == 0) return NULL;
    const data_symbol *candidate = &image->symbols[low - 1];
    if (address >= candidate->start + candidate->size) return NULL;
    *start = candidate->start;
    return candidate->name;
}

/// The symbols of the image `info` describes, read once (call with `symbols_lock` held).
static image_symbols *image_for(const Dl_info *info) {
    uintptr_t base = (uintptr_t)info->dli_fbase;
    image_symbols *image = images;
    while (image && image->base != base) image = image->next;
    if (!image) {
        // The main executable's dli_fname is its argv[0] (maybe relative, maybe empty);
        // /proc/self/exe is the file itself.
        const char *path =
            info->dli_fname && info->dli_fname[0] == '/' ? info->dli_fname : "/proc/self/exe";
        image = read_image(path, base);
        if (image) {
            image->next = images;
            images = image;
        }
    }
    return image;
}

const char *rg_symbol_at(uintptr_t address, uintptr_t *symbol_start) {
    Dl_info info;
    const ElfW(Sym) *symbol = NULL;
    if (!dladdr1((void *)address, &info, (void **)&symbol, RTLD_DL_SYMENT)) return NULL;
    if (info.dli_sname && symbol) {
        uintptr_t start = (uintptr_t)info.dli_saddr;
        if (address >= start && address < start + (symbol->st_size ? symbol->st_size : 8)) {
            *symbol_start = start;
            return info.dli_sname;
        }
    }
    pthread_mutex_lock(&symbols_lock);
    image_symbols *image = image_for(&info);
    const char *name = image ? lookup(image, address, symbol_start) : NULL;
    pthread_mutex_unlock(&symbols_lock);
    return name;
}

const void *rg_symbol_named(uintptr_t address, const char *name) {
    Dl_info info;
    if (!dladdr((void *)address, &info)) return NULL;
    pthread_mutex_lock(&symbols_lock);
    image_symbols *image = image_for(&info);
    const void *found = NULL;
    for (size_t index = 0; image && index < image->table_count && !found; index++) {
        const ElfW(Sym) *entry = &image->table[index];
        if (entry->st_name == 0 || entry->st_name >= image->strings_size || entry->st_value == 0)
            continue;
        if (strcmp(image->strings + entry->st_name, name) == 0)
            found = (const void *)(entry->st_value + image->bias);
    }
    pthread_mutex_unlock(&symbols_lock);
    return found;
}

bool rg_memory_is_readable(uintptr_t address, size_t size) {
    char buffer[256];
    if (size > sizeof buffer) size = sizeof buffer;
    struct iovec local = {buffer, size};
    struct iovec remote = {(void *)address, size};
    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)size;
}
